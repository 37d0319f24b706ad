/**
 * The crawler's options on POST /v2/map, as Firecrawl's map takes them, through the crawl's own
 * scope rules, and `robotsUserAgent` on crawls and maps: against the `*.localhost` fixture sites
 * of test/helpers/map-site.ts and a site whose robots.txt welcomes one named agent only.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { startMapSite, type MapFixtureSite } from '../helpers/map-site.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);
let site: MapFixtureSite;
let home: string;
let picky: http.Server;
let pickyOrigin: string;

/** robots.txt shuts out everyone but FriendlyBot; the pages link to each other. */
function pickySite(): http.Server {
  return http.createServer((req, res) => {
    const origin = `http://${req.headers.host}`;
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /\n\nUser-agent: FriendlyBot\nAllow: /\n');
    const links = ['/one', '/two'].map((p) => `<a href="${origin}${p}">${p}</a>`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${req.url}</title></head><body><p>Page ${req.url}</p>${links}</body></html>`);
  });
}

beforeAll(async () => {
  site = await startMapSite();
  home = site.origin('site');
  picky = pickySite();
  picky.listen(0, '127.0.0.1');
  await once(picky, 'listening');
  pickyOrigin = `http://127.0.0.1:${(picky.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await site?.close();
  await new Promise((resolve) => picky?.close(resolve));
});

async function mapUrls(body: Record<string, unknown>): Promise<string[]> {
  const res = await api<{ links: { url: string }[] }>('/v2/map', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.links.map((link) => link.url);
}

describe("the crawler's options on map", () => {
  it('keeps only paths matching includePaths and drops excludePaths, on the pathname or the full URL', async () => {
    const blog = await mapUrls({ url: home, includePaths: ['^/blog/'] });
    expect(blog.sort()).toEqual([`${home}/blog/hello-world`, `${home}/blog/second-post`]);
    const noDocs = await mapUrls({ url: home, excludePaths: ['^/docs'] });
    expect(noDocs).toContain(`${home}/pricing`);
    expect(noDocs.filter((url) => url.includes('/docs/'))).toEqual([]);
    const subdomainOnly = await mapUrls({ url: home, includePaths: ['^http://docs\\.site\\.localhost'], regexOnFullURL: true });
    expect(subdomainOnly.sort()).toEqual([`${site.origin('docs.site')}/guide`, `${site.origin('docs.site')}/reference`]);
  });

  it('stops at maxDiscoveryDepth: 0 is the start page alone', async () => {
    expect(await mapUrls({ url: home, maxDiscoveryDepth: 0 })).toEqual([`${home}/`]);
    expect((await mapUrls({ url: home, maxDiscoveryDepth: 1 })).length).toBeGreaterThan(5);
  });

  it('follows other sites with allowExternalLinks, and subdomains with allowSubdomains even when includeSubdomains is off', async () => {
    const external = await mapUrls({ url: home, allowExternalLinks: true });
    expect(external).toEqual(expect.arrayContaining([`${site.origin('other')}/external`, `${site.origin('other')}/from-sitemap`]));
    expect(await mapUrls({ url: home })).not.toContain(`${site.origin('other')}/external`);
    const subdomains = await mapUrls({ url: home, includeSubdomains: false, allowSubdomains: true });
    expect(subdomains).toContain(`${site.origin('docs.site')}/guide`);
  });

  it('leaves the start path with crawlEntireDomain, as filterByPath false does', async () => {
    const underDocs = await mapUrls({ url: `${home}/docs`, sitemap: 'skip' });
    expect(underDocs).not.toContain(`${home}/pricing`);
    const entire = await mapUrls({ url: `${home}/docs`, sitemap: 'skip', crawlEntireDomain: true });
    expect(entire).toContain(`${home}/pricing`);
  });

  it('lists the www twin apart with deduplicateSimilarURLs false', async () => {
    const merged = await mapUrls({ url: home, sitemap: 'skip' });
    expect(merged).not.toContain(`${site.origin('www.site')}/about`);
    const apart = await mapUrls({ url: home, sitemap: 'skip', deduplicateSimilarURLs: false });
    expect(apart).toEqual(expect.arrayContaining([`${home}/about`, `${site.origin('www.site')}/about`]));
  });

  it("spaces the map's own requests by delay seconds", async () => {
    const started = Date.now();
    await mapUrls({ url: home, ignoreCache: true });
    const quick = Date.now() - started;
    const slowStart = Date.now();
    // The start page and four sitemaps: four gaps of 0.5 s.
    const paced = await mapUrls({ url: home, delay: 0.5, ignoreCache: true });
    expect(Date.now() - slowStart).toBeGreaterThanOrEqual(2_000);
    expect(quick).toBeLessThan(2_000);
    expect(paced).toContain(`${home}/blog/second-post`);
  });

  it('reads robots.txt for robotsUserAgent', async () => {
    expect(await mapUrls({ url: `${pickyOrigin}/`, sitemap: 'skip' })).toEqual([]);
    const friendly = await mapUrls({ url: `${pickyOrigin}/`, sitemap: 'skip', robotsUserAgent: 'FriendlyBot' });
    expect(friendly.sort()).toEqual([`${pickyOrigin}/`, `${pickyOrigin}/one`, `${pickyOrigin}/two`]);
  });

  it.each([
    ['includePaths', { includePaths: ['(unclosed'] }],
    ['excludePaths', { excludePaths: ['(?=lookahead)'] }],
    ['maxDiscoveryDepth', { maxDiscoveryDepth: -1 }],
    ['delay', { delay: 61 }],
    ['robotsUserAgent', { robotsUserAgent: 'Two Words' }],
    ['ignoreCache', { ignoreCache: 'yes' }],
    ['crawlEntireDomain', { crawlEntireDomain: 1 }],
    ['regexOnFullURL', { regexOnFullURL: 'true' }],
  ])('refuses a bad %s naming it', async (field, extra) => {
    const res = await api('/v2/map', { body: { url: home, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });
});

describe('robotsUserAgent on a crawl', () => {
  it('crawls what robots.txt allows that agent, and blocks the rest for the default one (official SDK)', async () => {
    const firecrawl = new Firecrawl({ apiKey, apiUrl });
    const friendly = await firecrawl.crawl(`${pickyOrigin}/`, { limit: 5, sitemap: 'skip', robotsUserAgent: 'FriendlyBot/2.1', pollInterval: 0.5 });
    expect(friendly.status).toBe('completed');
    expect(friendly.data.map((d) => new URL(d.metadata!.sourceURL!).pathname).sort()).toEqual(['/', '/one', '/two']);

    const started = await api('/v2/crawl', { body: { url: `${pickyOrigin}/`, limit: 5, sitemap: 'skip' } });
    const blocked = await waitForJobEnd(api, 'crawl', started.body.id);
    expect(blocked.data).toEqual([]);
    const errors = await api(`/v2/crawl/${started.body.id}/errors`);
    expect(errors.body.robotsBlocked).toEqual([`${pickyOrigin}/`]);
  });

  it('refuses a robotsUserAgent that is not a user-agent token', async () => {
    const res = await api('/v2/crawl', { body: { url: `${pickyOrigin}/`, robotsUserAgent: 'bad\nvalue' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('robotsUserAgent');
  });
});
