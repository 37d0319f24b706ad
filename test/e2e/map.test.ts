/**
 * POST /v2/map and /v1/map end to end: real API, Temporal dev server, worker and Postgres,
 * against the `*.localhost` fixture sites of test/helpers/map-site.ts.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { BIG_SITE_PAGES, HOME_DESCRIPTION, HOME_TITLE, startMapSite, type MapFixtureSite } from '../helpers/map-site.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);
let site: MapFixtureSite;
let home: string;

beforeAll(async () => {
  site = await startMapSite();
  home = site.origin('site');
});
afterAll(async () => {
  await site.close();
});

interface MapLinkBody {
  url: string;
  title?: string;
  description?: string;
}

function map(body: Record<string, unknown>) {
  return api<{ success: boolean; links: MapLinkBody[]; warning?: string }>('/v2/map', { body });
}

async function mapUrls(body: Record<string, unknown>): Promise<string[]> {
  const res = await map(body);
  expect(res.status).toBe(200);
  return res.body.links.map((link) => link.url);
}

describe('POST /v2/map', () => {
  it('answers link objects with http urls, the start page first with its title and description', async () => {
    const res = await map({ url: home });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.warning).toBeUndefined();
    const { links } = res.body;
    for (const link of links) expect(link.url).toMatch(/^http:\/\/[^#?]+$/);
    expect(links[0]).toEqual({ url: `${home}/`, title: HOME_TITLE, description: HOME_DESCRIPTION });
    const listed = links.map((link) => link.url);
    // Sitemap URLs (through robots.txt and a nested index) and links found only on the page.
    expect(listed).toEqual(
      expect.arrayContaining([`${home}/sitemap-only-page`, `${home}/blog/hello-world`, `${home}/link-only-page`]),
    );
    expect(listed.filter((url) => url.includes('other.localhost') || url.includes('/private'))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('takes sources by sitemap mode: include, skip, only', async () => {
    const include = await mapUrls({ url: home, sitemap: 'include' });
    expect(include).toEqual(expect.arrayContaining([`${home}/sitemap-only-page`, `${home}/link-only-page`]));
    const skip = await mapUrls({ url: home, sitemap: 'skip' });
    expect(skip).toContain(`${home}/link-only-page`);
    expect(skip).not.toContain(`${home}/sitemap-only-page`);
    const only = await mapUrls({ url: home, sitemap: 'only' });
    expect(only).toContain(`${home}/sitemap-only-page`);
    expect(only).not.toContain(`${home}/link-only-page`);
  });

  it('includes subdomains by default and drops them with includeSubdomains false', async () => {
    const subdomain = `${site.origin('docs.site')}/guide`;
    expect(await mapUrls({ url: home })).toContain(subdomain);
    const without = await mapUrls({ url: home, includeSubdomains: false });
    expect(without).toContain(`${home}/pricing`);
    expect(without).not.toContain(subdomain);
  });

  it('drops query strings by default and keeps the variants with ignoreQueryParameters false', async () => {
    const ignored = await mapUrls({ url: home });
    expect(ignored.filter((url) => url.includes('/products'))).toEqual([`${home}/products`]);
    const kept = await mapUrls({ url: home, ignoreQueryParameters: false });
    expect(kept).toEqual(expect.arrayContaining([`${home}/products?id=1`, `${home}/products?id=2`]));
  });

  it('puts the page matching the search first', async () => {
    const listed = await mapUrls({ url: home, search: 'pricing' });
    expect(listed[0]).toBe(`${home}/pricing`);
  });

  it('returns at most limit links, 5000 by default', async () => {
    expect(BIG_SITE_PAGES).toBeGreaterThan(5000);
    expect(await mapUrls({ url: site.origin('big') })).toHaveLength(5000);
    expect((await mapUrls({ url: home, limit: 2 })).length).toBeLessThanOrEqual(2);
  });

  it('suggests mapping the base domain when a path yields fewer than two links', async () => {
    const res = await map({ url: `${home}/lonely/page` });
    expect(res.status).toBe(200);
    expect(res.body.links).toEqual([{ url: `${home}/lonely/page`, title: 'A page with no links' }]);
    expect(res.body.warning).toBe(`Only 1 result(s) found. For broader coverage, try mapping the base domain: ${home}`);
  });

  it('answers 408 MAP_TIMEOUT when the timeout passes', async () => {
    const started = Date.now();
    const res = await map({ url: site.origin('slow'), timeout: 1000 });
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ success: false, code: 'MAP_TIMEOUT', error: 'Map timed out' });
    // The worker gives up at the deadline; the API's own grace period is not what ended it.
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('rejects an invalid body', async () => {
    const res = await map({ url: home, limit: 0 });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });
});

describe('POST /v1/map', () => {
  it('returns plain string links and reads ignoreSitemap and sitemapOnly', async () => {
    const res = await api<{ success: boolean; links: string[] }>('/v1/map', { body: { url: home } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.links[0]).toBe(`${home}/`);
    for (const link of res.body.links) expect(typeof link).toBe('string');

    const ignoreSitemap = await api('/v1/map', { body: { url: home, ignoreSitemap: true } });
    expect(ignoreSitemap.body.links).not.toContain(`${home}/sitemap-only-page`);
    expect(ignoreSitemap.body.links).toContain(`${home}/link-only-page`);
    const sitemapOnly = await api('/v1/map', { body: { url: home, sitemapOnly: true } });
    expect(sitemapOnly.body.links).toContain(`${home}/sitemap-only-page`);
    expect(sitemapOnly.body.links).not.toContain(`${home}/link-only-page`);
  });
});

describe('official SDK', () => {
  it('maps through @mendable/firecrawl-js unmodified', async () => {
    const firecrawl = new Firecrawl({ apiKey, apiUrl });
    const result = await firecrawl.map(home, { search: 'pricing', limit: 10 });
    expect(result.links[0]?.url).toBe(`${home}/pricing`);
    const all = await firecrawl.map(home, { sitemap: 'only', limit: 3 });
    expect(all.links.length).toBeGreaterThan(0);
    expect(all.links.length).toBeLessThanOrEqual(3);
    await expect(firecrawl.map(site.origin('slow'), { timeout: 1000 })).rejects.toMatchObject({
      status: 408,
      code: 'MAP_TIMEOUT',
    });
  });
});
