import { randomUUID } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import { clampPagesToCredits } from '../../lib/credits.js';
import { crawlWorkflow } from '../../workflows/index.js';
import type { CrawlerSettings } from '../../lib/crawl/settings.js';
import type { AppDeps } from '../deps.js';
import { checkIdempotencyKey, insertRunningJob, jobSearchAttributes, startOrFail } from '../job-start.js';
import { authenticate, authOf, requireScope } from '../middleware/auth.js';
import { remainingCreditsOf, requireCredits } from '../middleware/credits.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { validateBody } from '../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { crawlRequestSchema, crawlRequestV1Schema, type CrawlRequest } from '../schemas/crawl.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';
import { mediaBaseUrl } from './media.js';

export function crawlRoutes(deps: AppDeps): Router {
  const router = Router();
  const auth = [authenticate({ db: deps.db, mode: deps.config.auth }), requireScope('crawl'), rateLimit(deps, 'crawl')];
  const credits = requireCredits(deps);
  router.post('/v2/crawl', ...auth, validateBody(crawlRequestSchema), credits, startCrawl(deps, 'v2'));
  router.post('/v1/crawl', ...auth, validateBody(crawlRequestV1Schema as z.ZodType), credits, startCrawl(deps, 'v1'));
  return router;
}

function startCrawl(deps: AppDeps, version: 'v1' | 'v2'): RequestHandler {
  return async (req, res) => {
    const body = res.locals.body as CrawlRequest;
    assertScrapeOptionsSupported(body.scrapeOptions, deps.features);
    const { teamId, keyId } = authOf(res);
    const idempotencyKey = await checkIdempotencyKey(deps, req, teamId);
    const { url, origin: _origin, integration: _integration, ...options } = body;
    const clamped = clampPagesToCredits(body.limit, remainingCreditsOf(res));
    const jobId = randomUUID();
    const workflowId = `crawl-${jobId}`;
    await insertRunningJob(deps, {
      jobId,
      teamId,
      kind: 'crawl',
      url,
      options,
      workflowId,
      idempotencyKey,
      apiKeyId: keyId,
      warning: clamped.warning,
    });
    await startOrFail(deps, jobId, () =>
      deps.temporal.workflow.start(crawlWorkflow, {
        workflowId,
        taskQueue: deps.config.temporal.taskQueue,
        args: [
          {
            jobId,
            teamId,
            kind: 'crawl',
            scrapeOptions: body.scrapeOptions,
            webhook: body.webhook,
            crawler: { ...crawlerSettings(body), limit: clamped.pages },
            maxConcurrency: body.maxConcurrency,
            delaySecs: body.delay,
            pagesPerRun: deps.config.crawl.pagesPerRun,
            mediaBaseUrl: mediaBaseUrl(req, deps.config),
          },
        ],
        typedSearchAttributes: jobSearchAttributes(teamId, 'crawl'),
      }),
    );
    res.json({ success: true, id: jobId, url: `${publicBaseUrl(req, deps.config)}/${version}/crawl/${jobId}` });
  };
}

function crawlerSettings(body: CrawlRequest): CrawlerSettings {
  return {
    startUrl: absoluteHttpUrl(body.url)!,
    includePaths: body.includePaths,
    excludePaths: body.excludePaths,
    regexOnFullURL: body.regexOnFullURL,
    maxDiscoveryDepth: body.maxDiscoveryDepth,
    limit: body.limit,
    sitemap: body.sitemap,
    crawlEntireDomain: body.crawlEntireDomain,
    allowSubdomains: body.allowSubdomains,
    allowExternalLinks: body.allowExternalLinks,
    ignoreRobotsTxt: body.ignoreRobotsTxt,
    ignoreQueryParameters: body.ignoreQueryParameters,
    deduplicateSimilarURLs: body.deduplicateSimilarURLs,
  };
}
