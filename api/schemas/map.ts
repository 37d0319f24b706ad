import { z } from 'zod';
import { locationSchema, requestMetaShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';

/** POST /v2/map */
export const mapRequestSchema = z.strictObject({
  url: targetUrlSchema,
  search: z.string().max(1000).optional().describe('Rank links by relevance to this query'),
  sitemap: z.enum(['include', 'skip', 'only']).default('include'),
  includeSubdomains: z.boolean().default(true),
  ignoreQueryParameters: z.boolean().default(true),
  limit: z.number().int().min(1).max(100_000).default(5000),
  timeout: z.number().int().min(1000).max(300_000).optional().describe('Deadline (ms); 408 MAP_TIMEOUT after it'),
  location: locationSchema.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  ignoreRobotsTxt: z.boolean().default(false),
  useIndex: z.boolean().default(true),
  filterByPath: z.boolean().default(true),
  ...requestMetaShape,
});
export type MapRequest = z.infer<typeof mapRequestSchema>;

/**
 * POST /v1/map: v1 chose the sitemap mode with two booleans. `sitemapOnly` wins over
 * `ignoreSitemap` because it is the narrower request; neither set leaves `sitemap` as given.
 */
export const mapRequestV1Schema = mapRequestSchema
  .extend({
    ignoreSitemap: z.boolean().optional(),
    sitemapOnly: z.boolean().optional(),
  })
  .transform(({ ignoreSitemap, sitemapOnly, ...body }): MapRequest => {
    if (sitemapOnly) return { ...body, sitemap: 'only' };
    if (ignoreSitemap) return { ...body, sitemap: 'skip' };
    return body;
  });
