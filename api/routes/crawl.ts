import { Router, type RequestHandler } from 'express';
import { clampPagesToCredits } from '../../lib/credits.js';
import { crawlWorkflow } from '../../workflows/index.js';
import { queryTerms } from '../../lib/crawl/relevance.js';
import type { CrawlerSettings, FocusSettings } from '../../lib/crawl/settings.js';
import type { AppDeps } from '../deps.js';
import { crawlOptionsFromV1 } from '../../lib/crawl/v1-options.js';
import { suggestCrawlOptions } from '../crawl-prompt.js';
import { checkIdempotencyKey, startJob } from '../job-start.js';
import { authOf } from '../middleware/auth.js';
import { remainingCreditsOf, requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody, type ValidatedBody } from '../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { crawlRequestSchema, crawlRequestV1Schema, type CrawlQuery, type CrawlRequest } from '../schemas/crawl.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { refuseBlockedStartUrl } from '../target-check.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { assertModelConfigured, assertScrapeOptionsSupported } from '../unsupported-options.js';
import { withZeroDataRetention, zeroDataRetentionOf } from '../zero-data-retention.js';
import { mediaBaseUrl } from './media.js';

export function crawlRoutes(deps: AppDeps): Router {
  const router = Router();
  const checks = guard(deps, 'crawl', 'crawl');
  const credits = requireCredits(deps);
  const v2 = validatedBody(crawlRequestSchema);
  const v1 = validatedBody(crawlRequestV1Schema);
  router.post('/v2/crawl', ...checks, v2, credits, startCrawl(deps, 'v2', v2));
  router.post('/v1/crawl', ...checks, v1, credits, startCrawl(deps, 'v1', v1));
  return router;
}

function startCrawl(deps: AppDeps, version: 'v1' | 'v2', validated: ValidatedBody<CrawlRequest>): RequestHandler {
  return async (req, res) => {
    const given = validated.of(res);
    assertScrapeOptionsSupported(given.scrapeOptions, deps.features);
    if (given.prompt) assertModelConfigured(deps.features, 'A crawl prompt', 'prompt');
    const { teamId, keyId } = authOf(res);
    await assertThreatOverrideAllowed(deps.db, teamId, given.scrapeOptions.threatProtection);
    const zdr = await zeroDataRetentionOf(deps, res, given.zeroDataRetention);
    const idempotencyKey = await checkIdempotencyKey(deps, req, teamId);
    await refuseBlockedStartUrl(deps, absoluteHttpUrl(given.url)!);
    const { body, promptWarning } = await withPromptOptions(deps, teamId, given, req.body);
    const { url, origin: _origin, integration: _integration, ...options } = body;
    const clamped = clampPagesToCredits(body.limit, remainingCreditsOf(res));
    const { jobId } = await startJob(deps, {
      kind: 'crawl',
      request: req,
      teamId,
      apiKeyId: keyId,
      url,
      options,
      idempotencyKey,
      zeroDataRetention: zdr,
      warning: [promptWarning, clamped.warning].filter(Boolean).join(' ') || undefined,
      workflow: crawlWorkflow,
      input: (id) => ({
        jobId: id,
        teamId,
        kind: 'crawl' as const,
        scrapeOptions: withZeroDataRetention(body.scrapeOptions, zdr),
        webhook: body.webhook,
        crawler: { ...crawlerSettings(body), limit: clamped.pages, ...(body.query && { focus: focusSettings(body.query) }) },
        maxConcurrency: body.maxConcurrency,
        delaySecs: body.delay,
        pagesPerRun: deps.config.crawl.pagesPerRun,
        mediaBaseUrl: mediaBaseUrl(req, deps.config),
      }),
    });
    res.json({ success: true, id: jobId, url: `${publicBaseUrl(req, deps.config)}/${version}/crawl/${jobId}` });
  };
}

/**
 * A crawl with `prompt` takes the options the model derives from it, as params-preview shows
 * them; options the request states itself win. The raw body tells which those are: after
 * parsing, every option has a value.
 */
async function withPromptOptions(deps: AppDeps, teamId: string, body: CrawlRequest, raw: unknown): Promise<{ body: CrawlRequest; promptWarning?: string }> {
  if (!body.prompt) return { body };
  const { crawlerOptions, ...top } = (raw ?? {}) as Record<string, unknown>;
  const stated = new Set(Object.keys(crawlOptionsFromV1({ ...(crawlerOptions as object | undefined), ...top })));
  const { options, dropped } = await suggestCrawlOptions(deps, { teamId, url: absoluteHttpUrl(body.url)!, prompt: body.prompt });
  const derived = Object.fromEntries(Object.entries(options).filter(([key]) => !stated.has(key)));
  return {
    body: { ...body, ...derived },
    ...(dropped.length > 0 && { promptWarning: `Ignored options the prompt implied that a crawl would refuse: ${dropped.join(', ')}.` }),
  };
}

/** The crawl's settings from its parsed request; monitors' crawl targets use it too (api/monitor/plan.ts). */
export function crawlerSettings(body: Pick<CrawlRequest, Exclude<keyof CrawlRequest, 'webhook' | 'prompt' | 'zeroDataRetention' | 'origin' | 'integration' | 'delay' | 'maxConcurrency' | 'query'>>): CrawlerSettings {
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
    via: { proxy: body.scrapeOptions.proxy, country: body.scrapeOptions.location?.country, robotsUserAgent: body.robotsUserAgent },
  };
}

function focusSettings(given: CrawlQuery): FocusSettings {
  const { coverage, evidence, saturation } = given.stopWhen;
  return { query: given.query, terms: queryTerms(given.query), minScore: given.minScore, ...(coverage !== undefined && { coverage }), evidence, saturation };
}
