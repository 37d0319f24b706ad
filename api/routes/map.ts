import { randomUUID } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import type { WorkflowHandle } from '@temporalio/client';
import type { z } from 'zod';
import { findTeamJob, setJobStatus } from '../../db/repositories/jobs.js';
import { mapWorkflow } from '../../workflows/index.js';
import type { MapJobResult } from '../../activities/map-site.js';
import { MAP_DEFAULT_TIMEOUT_MS } from '../../contracts/map-options.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { insertRunningJob, jobSearchAttributes, startOrFail } from '../job-start.js';
import { authenticate, authOf, requireScope } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { validateBody } from '../middleware/validate.js';
import { mapRequestSchema, mapRequestV1Schema, type MapRequest } from '../schemas/map.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { DEADLINE_GRACE_MS, withDeadline, workflowFailure } from '../workflow-result.js';

export function mapRoutes(deps: AppDeps): Router {
  const router = Router();
  const auth = [authenticate({ db: deps.db, mode: deps.config.auth }), requireScope('map'), rateLimit(deps, 'map')];
  const credits = requireCredits(deps);
  router.post('/v2/map', ...auth, validateBody(mapRequestSchema), credits, runMap(deps, 'v2'));
  router.post('/v1/map', ...auth, validateBody(mapRequestV1Schema as z.ZodType), credits, runMap(deps, 'v1'));
  return router;
}

const mapTimeout = () => httpError('MAP_TIMEOUT', 'Map timed out');

/** Synchronous: the request waits for the workflow, which leaves the links in the job row. */
function runMap(deps: AppDeps, version: 'v1' | 'v2'): RequestHandler {
  return async (_req, res) => {
    const { url, origin: _origin, integration: _integration, ...options } = res.locals.body as MapRequest;
    const { teamId, keyId } = authOf(res);
    const jobId = randomUUID();
    const workflowId = `map-${jobId}`;
    const timeoutMs = options.timeout ?? MAP_DEFAULT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    await insertRunningJob(deps, {
      jobId,
      teamId,
      kind: 'map',
      url,
      options,
      workflowId,
      idempotencyKey: null,
      apiKeyId: keyId,
    });

    let handle: WorkflowHandle<typeof mapWorkflow> | undefined;
    await startOrFail(deps, jobId, async () => {
      handle = await deps.temporal.workflow.start(mapWorkflow, {
        workflowId,
        taskQueue: deps.config.temporal.taskQueue,
        args: [{ jobId, url: absoluteHttpUrl(url)!, options, deadline }],
        workflowExecutionTimeout: timeoutMs + DEADLINE_GRACE_MS * 3,
        typedSearchAttributes: jobSearchAttributes(teamId, 'map'),
      });
    });
    const started = handle!;
    try {
      await withDeadline(
        started.result(),
        deadline + DEADLINE_GRACE_MS,
        () => started.cancel().catch(() => undefined),
        mapTimeout,
      );
    } catch (err) {
      const failure = workflowFailure(err, mapTimeout);
      await setJobStatus(deps.db, jobId, 'failed', failure.message);
      throw failure;
    }

    const result = (await findTeamJob(deps.db, teamId, jobId))?.result as MapJobResult | null | undefined;
    // The activity stored the links and completed the job in one statement.
    if (!result) throw new Error(`map ${jobId}: result missing after success`);
    if (version === 'v1') {
      res.json({ success: true, links: result.links.map((link) => link.url) });
      return;
    }
    res.json({ success: true, links: result.links, ...(result.warning && { warning: result.warning }) });
  };
}
