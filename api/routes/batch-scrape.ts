import { Router, type RequestHandler } from 'express';
import { addBatchPages } from '../../db/repositories/batch.js';
import { lockJobFor, reopenJob } from '../../db/repositories/jobs.js';
import { requireTeamJob } from '../job-view.js';
import { clampPagesToCredits } from '../../lib/credits.js';
import { exactPageKey } from '../../lib/url/normalize.js';
import { pagesAddedSignal } from '../../workflows/messages.js';
import type { BatchScrapeWorkflowInput } from '../../workflows/batch-scrape.js';
import { batchScrapeWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { checkIdempotencyKey, jobWorkflowOptions, startJob } from '../job-start.js';
import { authOf } from '../middleware/auth.js';
import { remainingCreditsOf, requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody, type ValidatedBody } from '../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { batchScrapeRequestSchema, type BatchScrapeRequest } from '../schemas/batch-scrape.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';
import { withZeroDataRetention, zeroDataRetentionOf } from '../zero-data-retention.js';
import { mediaBaseUrl } from './media.js';

export function batchScrapeRoutes(deps: AppDeps): Router {
  const router = Router();
  // A batch is an asynchronous job like a crawl: it shares the crawl rate limit.
  const body = validatedBody(batchScrapeRequestSchema);
  const checks = [...guard(deps, 'crawl', 'crawl'), body, requireCredits(deps)];
  router.post('/v2/batch/scrape', ...checks, startBatch(deps, 'v2', body));
  router.post('/v1/batch/scrape', ...checks, startBatch(deps, 'v1', body));
  return router;
}

function startBatch(
  deps: AppDeps,
  version: 'v1' | 'v2',
  validated: ValidatedBody<BatchScrapeRequest>,
): RequestHandler {
  return async (req, res) => {
    const body = validated.of(res);
    const {
      urls,
      ignoreInvalidURLs,
      appendToId,
      maxConcurrency,
      webhook,
      zeroDataRetention,
      origin: _origin,
      integration: _integration,
      ...scrapeOptions
    } = body;
    assertScrapeOptionsSupported(scrapeOptions, deps.features, { cacheOnly: true });
    const { teamId, keyId } = authOf(res);
    await assertThreatOverrideAllowed(deps.db, teamId, scrapeOptions.threatProtection);
    const zdr = await zeroDataRetentionOf(deps, res, zeroDataRetention);

    const workflowInput = (jobId: string): BatchScrapeWorkflowInput => ({
      jobId,
      teamId,
      kind: 'batch_scrape',
      scrapeOptions: withZeroDataRetention(scrapeOptions, zdr),
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
      pages.push({ url, urlKey: exactPageKey(url) });
    }
    if (invalidURLs.length > 0 && !ignoreInvalidURLs) {
      throw httpError('INVALID_URL', 'Invalid URL', { invalidURLs });
    }
    if (pages.length === 0) throw httpError('BAD_REQUEST', 'Bad Request: no valid URLs to scrape', { invalidURLs });

    let jobId: string;
    if (appendToId) {
      const job = await requireTeamJob(deps.db, teamId, appendToId, ['batch_scrape']);
      // The pages of one batch run with one set of options; a run the signal starts takes these.
      if (job.zero_data_retention !== zdr) {
        throw httpError('BAD_REQUEST', `zeroDataRetention must be ${job.zero_data_retention} to append to this batch`, { option: 'zeroDataRetention' });
      }
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
        signal: pagesAddedSignal,
        signalArgs: [],
        args: [workflowInput(jobId)],
        ...jobWorkflowOptions(deps, teamId, 'batch_scrape', job.zero_data_retention),
      });
    } else {
      const idempotencyKey = await checkIdempotencyKey(deps, req, teamId);
      // Appended URLs are not clamped: a batch that runs out of credits stops cleanly instead.
      const clamped = clampPagesToCredits(pages.length, remainingCreditsOf(res));
      ({ jobId } = await startJob(deps, {
        kind: 'batch_scrape',
        request: req,
        teamId,
        apiKeyId: keyId,
        url: null,
        options: { ...scrapeOptions, maxConcurrency, webhook },
        idempotencyKey,
        zeroDataRetention: zdr,
        warning: clamped.warning,
        beforeStart: (id) => addBatchPages(deps.db, id, pages.slice(0, clamped.pages)),
        workflow: batchScrapeWorkflow,
        input: workflowInput,
      }));
    }
    res.json({
      success: true,
      id: jobId,
      url: `${publicBaseUrl(req, deps.config)}/${version}/batch/scrape/${jobId}`,
      ...(ignoreInvalidURLs && { invalidURLs }),
    });
  };
}
