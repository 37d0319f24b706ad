import { z } from 'zod';
import { crawlScopeShape } from '../../contracts/crawl-scope.js';
import { crawlOptionsFromV1 } from '../../lib/crawl/v1-options.js';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';
import { webhookSchema } from '../../contracts/webhook.js';
import { MAX_JOB_PAGES } from '../../contracts/job-limits.js';
import { MAX_QUERY_TERMS, queryTerms } from '../../lib/crawl/relevance.js';

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

const stopWhenShape = {
  coverage: z.number().gt(0).max(1).optional().describe('Stop once the relevant pages cover this share of the query (0–1]; off when absent'),
  evidence: z.number().int().min(1).max(100).default(3).describe('Relevant pages holding a query term for that term to count as covered'),
  saturation: z.number().int().min(1).max(MAX_JOB_PAGES).default(25).describe('Stop after this many pages in a row score below minScore'),
};

/** A Trawl extension: the crawl goes best first by relevance to `query` and stops when it is answered (lib/crawl/relevance.ts). */
export const crawlQuerySchema = z
  .strictObject({
    query: z
      .string()
      .min(1)
      .max(1000)
      .refine((q) => queryTerms(q).length > 0, 'the query has no words to look for (only stopwords or punctuation)')
      .refine((q) => queryTerms(q).length <= MAX_QUERY_TERMS, `at most ${MAX_QUERY_TERMS} distinct words`)
      .describe('What the crawl looks for'),
    minScore: z.number().min(0).max(1).default(0.1).describe('Links scoring below it are not followed; pages below it are not relevant'),
    stopWhen: z
      .strictObject(stopWhenShape)
      .default(() => z.strictObject(stopWhenShape).parse({}))
      .describe('Adaptive stop rules'),
  })
  .describe('Trawl extension: a query-directed crawl, best first by relevance to the query');
export type CrawlQuery = z.infer<typeof crawlQuerySchema>;

/** POST /v2/crawl */
export const crawlRequestSchema = z.strictObject({
  url: targetUrlSchema,
  ...crawlerOptionsShape,
  query: crawlQuerySchema.optional(),
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
