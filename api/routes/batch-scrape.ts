import { randomUUID } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { addBatchPages } from '../../db/repositories/batch.js';
import { findTeamJob, lockJobFor, reopenJob } from '../../db/repositories/jobs.js';
import { clampPagesToCredits } from '../../lib/credits.js';
import { normalizeUrl, urlKey } from '../../lib/url/normalize.js';
import { pagesAddedSignal } from '../../workflows/messages.js';
import type { BatchScrapeWorkflowInput } from '../../workflows/batch-scrape.js';
import { batchScrapeWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { checkIdempotencyKey, insertRunningJob, jobSearchAttributes, startOrFail } from '../job-start.js';
import { authenticate, authOf, requireScope } from '../middleware/auth.js';
import { remainingCreditsOf, requireCredits } from '../middleware/credits.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { validateBody } from '../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { batchScrapeRequestSchema, type BatchScrapeRequest } from '../schemas/batch-scrape.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';
import { mediaBaseUrl } from './media.js';

export function batchScrapeRoutes(deps: AppDeps): Router {
  const router = Router();
  // A batch is an asynchronous job like a crawl: it shares the crawl rate limit.
  const auth = [authenticate({ db: deps.db, mode: deps.config.auth }), requireScope('crawl'), rateLimit(deps, 'crawl')];
  const credits = requireCredits(deps);
  router.post('/v2/batch/scrape', ...auth, validateBody(batchScrapeRequestSchema), credits, startBatch(deps, 'v2'));
  router.post('/v1/batch/scrape', ...auth, validateBody(batchScrapeRequestSchema), credits, startBatch(deps, 'v1'));
  return router;
}

function startBatch(deps: AppDeps, version: 'v1' | 'v2'): RequestHandler {
  return async (req, res) => {
    const body = res.locals.body as BatchScrapeRequest;
    const {
      urls,
      ignoreInvalidURLs,
      appendToId,
      maxConcurrency,
      webhook,
      zeroDataRetention: _zdr,
      origin: _origin,
      integration: _integration,
      ...scrapeOptions
    } = body;
    assertScrapeOptionsSupported(scrapeOptions, deps.features);
    const { teamId, keyId } = authOf(res);

    const workflowInput = (jobId: string): BatchScrapeWorkflowInput => ({
      jobId,
      teamId,
      kind: 'batch_scrape',
      scrapeOptions,
      webhook,
      maxConcurrency,
      pagesPerRun: deps.config.crawl.pagesPerRun,
      mediaBaseUrl: mediaBaseUrl(req, deps.config),
    });

    const pages: { url: string; urlKey: string }[] = [];
    const invalidURLs: string[] = [];
    for (const raw of urls) {
      const url = absoluteHttpUrl(raw);
      if (!url) {
        invalidURLs.push(raw);
        continue;
      }
      pages.push({ url, urlKey: urlKey(normalizeUrl(url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false })) });
    }
    if (invalidURLs.length > 0 && !ignoreInvalidURLs) {
      throw httpError('INVALID_URL', 'Invalid URL', { invalidURLs });
    }
    if (pages.length === 0) throw httpError('BAD_REQUEST', 'Bad Request: no valid URLs to scrape', { invalidURLs });

    let jobId: string;
    if (appendToId) {
      const job = await findTeamJob(deps.db, teamId, appendToId);
      if (!job || job.kind !== 'batch_scrape') throw httpError('JOB_NOT_FOUND', 'Job not found');
      jobId = job.id;
      // Under the job row's lock: either the running workflow's completion sees these pages, or
      // the job had completed and is reopened here for the run the signal below starts.
      await lockJobFor(deps.db, job.id, async (trx, locked) => {
        await addBatchPages(trx, locked.id, pages);
        if (locked.status !== 'scraping') await reopenJob(trx, locked.id);
      });
      // Wakes the running workflow, or starts a new run if the batch had already finished.
      await deps.temporal.workflow.signalWithStart(batchScrapeWorkflow, {
        workflowId: job.workflow_id,
        taskQueue: deps.config.temporal.taskQueue,
        signal: pagesAddedSignal,
        signalArgs: [],
        args: [workflowInput(jobId)],
        typedSearchAttributes: jobSearchAttributes(teamId, 'batch_scrape'),
      });
    } else {
      const idempotencyKey = await checkIdempotencyKey(deps, req, teamId);
      // Appended URLs are not clamped: a batch that runs out of credits stops cleanly instead.
      const clamped = clampPagesToCredits(pages.length, remainingCreditsOf(res));
      jobId = randomUUID();
      const workflowId = `batch-${jobId}`;
      await insertRunningJob(deps, {
        jobId,
        teamId,
        kind: 'batch_scrape',
        url: null,
        options: { ...scrapeOptions, maxConcurrency, webhook },
        workflowId,
        idempotencyKey,
        apiKeyId: keyId,
        warning: clamped.warning,
      });
      await addBatchPages(deps.db, jobId, pages.slice(0, clamped.pages));
      const id = jobId;
      await startOrFail(deps, id, () =>
        deps.temporal.workflow.start(batchScrapeWorkflow, {
          workflowId,
          taskQueue: deps.config.temporal.taskQueue,
          args: [workflowInput(id)],
          typedSearchAttributes: jobSearchAttributes(teamId, 'batch_scrape'),
        }),
      );
    }
    res.json({
      success: true,
      id: jobId,
      url: `${publicBaseUrl(req, deps.config)}/${version}/batch/scrape/${jobId}`,
      ...(ignoreInvalidURLs && { invalidURLs }),
    });
  };
}
