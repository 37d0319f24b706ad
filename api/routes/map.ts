import { Router, type RequestHandler } from 'express';
import type { MapJobResult } from '../../activities/map.js';
import { notDoneWarnings } from '../../contracts/cloud-only.js';
import { MAP_DEFAULT_TIMEOUT_MS } from '../../contracts/map-options.js';
import { findTeamJob } from '../../db/repositories/jobs.js';
import { mapWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { startJob } from '../job-start.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody, type ValidatedBody } from '../middleware/validate.js';
import { mapRequestSchema, mapRequestV1Schema, type MapRequest } from '../schemas/map.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { refuseBlockedStartUrl } from '../target-check.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { awaitSyncJob, DEADLINE_GRACE_MS } from '../workflow-result.js';

export function mapRoutes(deps: AppDeps): Router {
  const router = Router();
  const checks = guard(deps, 'map', 'map');
  const credits = requireCredits(deps);
  const v2 = validatedBody(mapRequestSchema);
  const v1 = validatedBody(mapRequestV1Schema);
  router.post('/v2/map', ...checks, v2, credits, runMap(deps, 'v2', v2));
  router.post('/v1/map', ...checks, v1, credits, runMap(deps, 'v1', v1));
  return router;
}

const mapTimeout = () => httpError('MAP_TIMEOUT', 'Map timed out');

/** Synchronous: the request waits for the workflow, which leaves the links in the job row. */
function runMap(deps: AppDeps, version: 'v1' | 'v2', body: ValidatedBody<MapRequest>): RequestHandler {
  return async (req, res) => {
    const { url, origin: _origin, integration: _integration, ...options } = body.of(res);
    const { teamId, keyId } = authOf(res);
    await refuseBlockedStartUrl(deps, absoluteHttpUrl(url)!, { refuseUnresolvable: true });
    await assertThreatOverrideAllowed(deps.db, teamId, options.threatProtection);
    const timeoutMs = options.timeout ?? MAP_DEFAULT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const { jobId, handle } = await startJob(deps, {
      kind: 'map',
      request: req,
      teamId,
      apiKeyId: keyId,
      url,
      options,
      workflow: mapWorkflow,
      input: (id) => ({ jobId: id, teamId, url: absoluteHttpUrl(url)!, options, deadline }),
      workflowExecutionTimeoutMs: timeoutMs + DEADLINE_GRACE_MS * 3,
    });
    await awaitSyncJob(deps, res, { jobId, handle, deadline, expired: mapTimeout, timedOut: mapTimeout });

    const result = (await findTeamJob(deps.db, teamId, jobId))?.result as MapJobResult | null | undefined;
    // The activity stored the links and completed the job in one statement.
    if (!result) throw new Error(`map ${jobId}: result missing after success`);
    if (version === 'v1') {
      res.json({ success: true, links: result.links.map((link) => link.url) });
      return;
    }
    const warning = [notDoneWarnings('map', options), result.warning].filter(Boolean).join(' ');
    res.json({ success: true, links: result.links, ...(warning && { warning }) });
  };
}
