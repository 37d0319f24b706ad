import { z } from 'zod';
import { validatePathRegexes } from '../../lib/crawl/path-patterns.js';
import { crawlOptionsFromV1 } from '../../lib/crawl/v1-options.js';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';
import { webhookSchema } from '../../contracts/webhook.js';

const pathRegexes = z
  .array(z.string().max(2000))
  .default([])
  .superRefine((list, ctx) => {
    const problem = validatePathRegexes(list);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const crawlScrapeOptionsSchema = z
  .strictObject(scrapeOptionsShape)
  .superRefine(checkWaitForWithinTimeout)
  .default(() => z.strictObject(scrapeOptionsShape).parse({}))
  .describe('Scrape options applied to every page');

/** The crawler options, shared by v2 and (after renaming) v1. */
export const crawlerOptionsShape = {
  includePaths: pathRegexes.describe('Regexes on the pathname; a page must match one'),
  excludePaths: pathRegexes.describe('Regexes on the pathname; a matching page is skipped'),
  regexOnFullURL: z.boolean().default(false).describe('Match path regexes against the full URL'),
  maxDiscoveryDepth: z.number().int().min(0).optional().describe('Link hops from the start page'),
  limit: z.number().int().min(1).max(100_000).default(10_000).describe('Most pages to scrape'),
  sitemap: z.enum(['include', 'skip', 'only']).default('include').describe('Use sitemaps: with links, never, or only'),
  crawlEntireDomain: z.boolean().default(false).describe('Follow links outside the start path'),
  allowSubdomains: z.boolean().default(false).describe('Follow subdomains of the start domain'),
  allowExternalLinks: z.boolean().default(false).describe('Follow links to other sites'),
  ignoreRobotsTxt: z.boolean().default(false).describe('Do not honour robots.txt'),
  ignoreQueryParameters: z.boolean().default(false).describe('Treat URLs differing only in query as one'),
  deduplicateSimilarURLs: z.boolean().default(true).describe('Treat www/http(s)/slash/index variants as one'),
  delay: z.number().min(0).max(60).optional().describe('Seconds between page requests'),
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
