import { describe, expect, it } from 'vitest';
import { mapRequestSchema, mapRequestV1Schema } from '../../../api/schemas/map.js';

describe('map request schemas', () => {
  it('applies the v2 defaults', () => {
    expect(mapRequestSchema.parse({ url: 'example.com' })).toMatchObject({
      sitemap: 'include',
      includeSubdomains: true,
      ignoreQueryParameters: true,
      limit: 5000,
      filterByPath: true,
      ignoreRobotsTxt: false,
    });
  });

  it('turns v1 ignoreSitemap and sitemapOnly into the sitemap mode, sitemapOnly winning', () => {
    const parse = (body: Record<string, unknown>) => mapRequestV1Schema.parse({ url: 'example.com', ...body });
    expect(parse({})).toMatchObject({ sitemap: 'include' });
    expect(parse({ ignoreSitemap: true })).toMatchObject({ sitemap: 'skip' });
    expect(parse({ sitemapOnly: true })).toMatchObject({ sitemap: 'only' });
    expect(parse({ ignoreSitemap: true, sitemapOnly: true })).toMatchObject({ sitemap: 'only' });
    expect(parse({ ignoreSitemap: false })).not.toHaveProperty('ignoreSitemap');
  });

  it('refuses v1 names on v2, and malformed v1 booleans', () => {
    expect(mapRequestSchema.safeParse({ url: 'example.com', ignoreSitemap: true }).success).toBe(false);
    expect(mapRequestV1Schema.safeParse({ url: 'example.com', sitemapOnly: 'yes' }).success).toBe(false);
  });
});
