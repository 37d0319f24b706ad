import { Router, type Request, type RequestHandler, type Response } from 'express';
import { findDocument } from '../../db/repositories/documents.js';
import { scrapeWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { requireTeamJob } from '../job-view.js';
import { startJob } from '../job-start.js';
import { teamStandingOf } from '../team-plan.js';
import { authOf } from '../middleware/auth.js';
import { remainingCreditsOf, requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody, type ValidatedBody } from '../middleware/validate.js';
import { scrapeRequestSchema } from '../schemas/scrape.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';
import { awaitSyncJob, DEADLINE_GRACE_MS } from '../workflow-result.js';
import { forgetDeliveredJob, withZeroDataRetention, zeroDataRetentionOf } from '../zero-data-retention.js';
import { mediaBaseUrl } from './media.js';

export function scrapeRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(scrapeRequestSchema);
  router.post('/v2/scrape', ...scrapeRequestChecks(deps, body), async (req, res) => {
    const { url, origin: _origin, integration: _integration, zeroDataRetention, ...options } = body.of(res);
    res.json({ success: true, data: await runScrape(deps, req, res, { url, zeroDataRetention, options }) });
  });
  // A read of a finished job, polled like a crawl's status; v1's answer is the same envelope.
  router.get(['/v2/scrape/:id', '/v1/scrape/:id'], ...guard(deps, 'scrape', 'crawl-status'), async (req, res) => {
    const id = String(req.params.id);
    const job = await requireTeamJob(deps.db, authOf(res).teamId, id, ['scrape']);
    const row = job.status === 'completed' ? await findDocument(deps.db, id) : undefined;
    if (!row?.document) throw httpError('JOB_NOT_FOUND', 'Job not found');
    res.json({ success: true, data: row.document });
  });
  return router;
}

/** What every scrape request passes before it runs, v1 and v2 alike; only the body schema differs. */
export function scrapeRequestChecks(deps: AppDeps, body: ValidatedBody<unknown>): RequestHandler[] {
  return [...guard(deps, 'scrape', 'scrape'), body, requireCredits(deps)];
}

/**
 * Runs one scrape job to the end for a validated request: job row, workflow, the stored Document.
 * Shared by /v2/scrape and /v1/scrape (api/routes/scrape-v1.ts), which differ only in their schemas.
 */
export async function runScrape(
  deps: AppDeps,
  req: Request,
  res: Response,
  { url, zeroDataRetention, options, uploadId }: { url: string; zeroDataRetention: boolean; options: ScrapeOptions; uploadId?: string },
): Promise<unknown> {
  const zdr = await zeroDataRetentionOf(deps, res, zeroDataRetention);
  assertScrapeOptionsSupported(options, deps.features, { cacheOnly: !uploadId });
  const { teamId, keyId } = authOf(res);
  await assertThreatOverrideAllowed(deps.db, teamId, options.threatProtection);
  const deadline = Date.now() + options.timeout;
  const standing = await teamStandingOf(deps.db, res);
  let stored: ReturnType<AppDeps['storedScrapes']['wait']> | undefined;
  try {
    const { jobId, handle } = await startJob(deps, {
      kind: 'scrape',
      request: req,
      teamId,
      apiKeyId: keyId,
      url,
      options,
      zeroDataRetention: zdr,
      // The response waits for the job's result or its failure, and either commit makes the row
      // durable with it.
      relaxed: true,
      // Registered before the start, so the notice cannot come before anyone listens for it.
      beforeStart: (id) => {
        stored = deps.storedScrapes.wait(id);
      },
      workflow: scrapeWorkflow,
      input: (id) => ({
        jobId: id,
        teamId,
        // An upload's pseudo-URL (api/routes/parse.ts) names it; there is nothing to fetch.
        url: uploadId ? url : absoluteHttpUrl(url)!,
        sourceUrl: url,
        ...(uploadId && { uploadId }),
        options: withZeroDataRetention(options, zdr),
        deadline,
        documentId: id,
        mediaBaseUrl: mediaBaseUrl(req, deps.config),
        // Read for this request's rate limit and credit check (requireCredits, which every route
        // running a scrape mounts), so the page's admission does not read them again.
        budget: { plan: standing.plan, remainingCredits: remainingCreditsOf(res) },
      }),
      workflowExecutionTimeoutMs: options.timeout + DEADLINE_GRACE_MS * 3,
    });
    await awaitSyncJob(deps, res, {
      jobId,
      handle,
      deadline,
      stored: stored?.stored,
      expired: () => httpError('SCRAPE_TIMEOUT', 'Scrape timed out: no worker finished the page before the deadline'),
      timedOut: () => httpError('SCRAPE_TIMEOUT', `Scrape timed out after ${options.timeout} ms`),
    });
    // The activity completed the job in the transaction that stored the Document, whose id is the
    // job's (documentId above).
    const row = await findDocument(deps.db, jobId);
    if (!row?.document) throw new Error(`scrape ${jobId}: document missing after success`);
    // Delivered with this response: a ZDR scrape keeps nothing, and a later GET answers 404.
    if (zdr) await forgetDeliveredJob(deps, { id: jobId, workflowId: handle.workflowId });
    return row.document;
  } finally {
    stored?.cancel();
  }
}
