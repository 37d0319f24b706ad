import { randomUUID } from 'node:crypto';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { findDocument } from '../../db/repositories/documents.js';
import { findTeamJob, setJobStatus } from '../../db/repositories/jobs.js';
import { TrawlError } from '../../lib/errors.js';
import { scrapeWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { authenticate, authOf, requireScope } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { validateBody } from '../middleware/validate.js';
import { scrapeRequestSchema, type ScrapeRequest } from '../schemas/scrape.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';
import { DEADLINE_GRACE_MS, withDeadline, workflowFailure } from '../workflow-result.js';
import { mediaBaseUrl } from './media.js';
import { insertRunningJob, jobSearchAttributes } from '../job-start.js';

export function scrapeRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post('/v2/scrape', ...scrapeRequestChecks(deps, scrapeRequestSchema), async (req, res) => {
    const { url, origin: _origin, integration: _integration, zeroDataRetention, ...options } =
      res.locals.body as ScrapeRequest;
    res.json({ success: true, data: await runScrape(deps, req, res, { url, zeroDataRetention, options }) });
  });
  router.get(
    '/v2/scrape/:id',
    authenticate({ db: deps.db, mode: deps.config.auth }),
    requireScope('scrape'),
    // A read of a finished job, polled like a crawl's status.
    rateLimit(deps, 'crawl-status'),
    async (req, res) => {
      const id = String(req.params.id);
      const job = UUID.test(id) ? await findTeamJob(deps.db, authOf(res).teamId, id) : undefined;
      const row = job?.kind === 'scrape' && job.status === 'completed' ? await findDocument(deps.db, id) : undefined;
      if (!row?.document) throw httpError('JOB_NOT_FOUND', 'Job not found');
      res.json({ success: true, data: row.document });
    },
  );
  return router;
}

/** What every scrape request passes before it runs, v1 and v2 alike; only the body schema differs. */
export function scrapeRequestChecks(deps: AppDeps, schema: z.ZodType): RequestHandler[] {
  return [
    authenticate({ db: deps.db, mode: deps.config.auth }),
    requireScope('scrape'),
    rateLimit(deps, 'scrape'),
    validateBody(schema),
    requireCredits(deps),
  ];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Runs one scrape job to the end for a validated request: job row, workflow, the stored Document.
 * Shared by /v2/scrape and /v1/scrape (api/routes/scrape-v1.ts), which differ only in their schemas.
 */
export async function runScrape(
  deps: AppDeps,
  req: Request,
  res: Response,
  { url, zeroDataRetention, options }: { url: string; zeroDataRetention: boolean; options: ScrapeOptions },
): Promise<unknown> {
  if (zeroDataRetention) {
    throw httpError('BAD_REQUEST', 'Zero data retention is not enabled for this team', {
      option: 'zeroDataRetention',
    });
  }
  assertScrapeOptionsSupported(options, deps.features);
  const { teamId, keyId } = authOf(res);
  const jobId = randomUUID();
  const deadline = Date.now() + options.timeout;
  const workflowId = `scrape-${jobId}`;
  // Relaxed: the response waits for the job's result or its failure, and either commit makes the
  // row durable with it.
  await insertRunningJob(
    deps,
    { jobId, teamId, kind: 'scrape', url, options, workflowId, idempotencyKey: null, apiKeyId: keyId },
    { relaxed: true },
  );

  // Registered before the start, so the notice cannot come before anyone listens for it.
  const stored = deps.storedScrapes.wait(jobId);
  try {
    const handle = await deps.temporal.workflow.start(scrapeWorkflow, {
      workflowId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [
        {
          jobId,
          teamId,
          url: absoluteHttpUrl(url)!,
          sourceUrl: url,
          options,
          deadline,
          documentId: jobId,
          mediaBaseUrl: mediaBaseUrl(req, deps.config),
        },
      ],
      workflowExecutionTimeout: options.timeout + DEADLINE_GRACE_MS * 3,
      typedSearchAttributes: jobSearchAttributes(teamId, 'scrape'),
    });
    await withDeadline(
      Promise.race([stored.stored, handle.result()]),
      deadline + DEADLINE_GRACE_MS,
      () => handle.cancel().catch(() => undefined),
      () => httpError('SCRAPE_TIMEOUT', 'Scrape timed out: no worker finished the page before the deadline'),
    );
  } catch (err) {
    const failure = workflowFailure(err, () =>
      httpError('SCRAPE_TIMEOUT', `Scrape timed out after ${options.timeout} ms`),
    );
    await setJobStatus(deps.db, jobId, 'failed', failure.message);
    // Slots free as the team's pages finish, usually within seconds.
    if (failure instanceof TrawlError && failure.code === 'CONCURRENCY_LIMITED') res.set('Retry-After', '1');
    throw failure;
  } finally {
    stored.cancel();
  }
  // The activity completed the job in the transaction that stored the Document, whose id is the
  // job's (documentId above).
  const row = await findDocument(deps.db, jobId);
  if (!row?.document) throw new Error(`scrape ${jobId}: document missing after success`);
  return row.document;
}
