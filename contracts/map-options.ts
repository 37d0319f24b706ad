/** The options of a map (POST /v2/map without its url), shared by the API schema and the map activity. */
import { z } from 'zod';
import { auditMetadataSchema } from './cloud-only.js';
import { crawlScopeShape } from './crawl-scope.js';
import { httpHeadersSchema } from './http-headers.js';
import { locationSchema, threatProtectionSchema } from './scrape-options.js';
import { MAX_JOB_PAGES } from './job-limits.js';

export { MAP_DEFAULT_TIMEOUT_MS } from './map-timeout.js';

export const mapOptionsShape = {
  // Firecrawl's map takes the crawler's options; here they go through the crawl's own scope rules.
  ...crawlScopeShape,
  search: z.string().max(1000).optional().describe('Rank links by relevance to this query'),
  sitemap: z.enum(['include', 'skip', 'only']).default('include'),
  includeSubdomains: z.boolean().default(true),
  ignoreQueryParameters: z.boolean().default(true),
  limit: z.number().int().min(1).max(MAX_JOB_PAGES).default(5000),
  timeout: z.number().int().min(1000).max(300_000).optional().describe('Deadline (ms); 408 MAP_TIMEOUT after it'),
  location: locationSchema.optional(),
  headers: httpHeadersSchema.optional(),
  ignoreRobotsTxt: z.boolean().default(false),
  useIndex: z.boolean().default(true),
  filterByPath: z.boolean().default(true),
  // A map is read fresh every time (Trawl keeps no map cache), which is what ignoreCache asks.
  ignoreCache: z.boolean().default(false).describe('Accepted; a map is always read fresh'),
  threatProtection: threatProtectionSchema.optional(),
  auditMetadata: auditMetadataSchema,
};

export type MapOptions = z.infer<z.ZodObject<typeof mapOptionsShape>>;
