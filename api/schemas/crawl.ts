import { z } from 'zod';
import { crawlScopeShape } from '../../contracts/crawl-scope.js';
import { crawlOptionsFromV1 } from '../../lib/crawl/v1-options.js';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';
import { webhookSchema } from '../../contracts/webhook.js';
import { MAX_JOB_PAGES } from '../../contracts/job-limits.js';

export const crawlScrapeOptionsSchema = z
  .strictObject(scrapeOptionsShape)
  .superRefine(checkWaitForWithinTimeout)
  .default(() => z.strictObject(scrapeOptionsShape).parse({}))
  .describe('Scrape options applied to every page');

/** The crawler options, shared by v2 and (after renaming) v1. */
export const crawlerOptionsShape = {
  ...crawlScopeShape,
  limit: z.number().int().min(1).max(MAX_JOB_PAGES).default(10_000).describe('Most pages to scrape'),
  sitemap: z.enum(['include', 'skip', 'only']).default('include').describe('Use sitemaps: with links, never, or only'),
  ignoreRobotsTxt: z.boolean().default(false).describe('Do not honour robots.txt'),
  ignoreQueryParameters: z.boolean().default(false).describe('Treat URLs differing only in query as one'),
  maxConcurrency: z.number().int().min(1).max(100).optional().describe('Pages of this crawl in flight at once'),
  webhook: webhookSchema.optional(),
  prompt: z.string().max(10_000).optional().describe('Natural-language crawl instructions (stored)'),
  zeroDataRetention: z.boolean().default(false),
};

/** POST /v2/crawl */
export const crawlRequestSchema = z.strictObject({
  url: targetUrlSchema,
  ...crawlerOptionsShape,
  scrapeOptions: crawlScrapeOptionsSchema,
  ...requestMetaShape,
});
export type CrawlRequest = z.infer<typeof crawlRequestSchema>;

/** POST /v1/crawl: v1 names (maxDepth, allowBackwardLinks, ignoreSitemap) renamed before parsing. */
export const crawlRequestV1Schema = z.preprocess((body) => {
  if (!body || typeof body !== 'object') return body;
  const { crawlerOptions, ...rest } = body as Record<string, unknown>;
  const merged = { ...(crawlerOptions && typeof crawlerOptions === 'object' ? crawlerOptions : {}), ...rest };
  return crawlOptionsFromV1(merged);
}, crawlRequestSchema);
