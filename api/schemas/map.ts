import { z } from 'zod';
import { mapOptionsShape } from '../../contracts/map-options.js';
import { requestMetaShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';

/** POST /v2/map */
export const mapRequestSchema = z.strictObject({
  url: targetUrlSchema,
  ...mapOptionsShape,
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
