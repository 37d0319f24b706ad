/**
 * ScrapeOptions of SDK 4.42 that change how a page is fetched: `lockdown` and `minAge` answer only
 * from the team's page cache (never contacting the site, Firecrawl's 404s on a miss, lockdown's
 * 5 credits), and `fastMode` keeps to plain HTTP. The fixture server counts its requests, so
 * "never fetched" is measured, not assumed.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
const hits = new Map<string, number>();
let server: http.Server;
let origin: string;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;

const SHELL = `<html><head><title>App</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<h1>Rendered by script</h1><p>' + 'Content that only JavaScript writes. '.repeat(20) + '</p>';</script></body></html>`;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/app') return void res.writeHead(200, { 'content-type': 'text/html' }).end(SHELL);
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${path}</title></head><body><h1>Page ${path}</h1><p>Served at ${path}.</p></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A team of its own: its cache holds only what this file put there.
  const key = await createKeyWithCli(databaseUrl, 'compat-cache-only');
  api = apiClient(apiUrl, key);
  firecrawl = new Firecrawl({ apiKey: key, apiUrl });
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('lockdown', () => {
  it('answers a cached page without contacting the site, for 5 credits, and 404s a page never cached (official SDK)', async () => {
    const fresh = await firecrawl.scrape(`${origin}/kept`, { formats: ['markdown'] });
    expect(fresh.metadata?.cacheState).toBe('miss');
    const before = hits.get('/kept');
    const locked = await firecrawl.scrape(`${origin}/kept`, { formats: ['markdown'], lockdown: true });
    expect(locked.markdown).toContain('Served at /kept.');
    expect(locked.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 5 });
    expect(hits.get('/kept')).toBe(before);

    await expect(firecrawl.scrape(`${origin}/never`, { lockdown: true })).rejects.toMatchObject({ status: 404, code: 'SCRAPE_LOCKDOWN_CACHE_MISS' });
    expect(hits.has('/never')).toBe(false);
  });

  it('answers a batch page by page: a cached one, and a miss in /errors', async () => {
    await firecrawl.scrape(`${origin}/batch-kept`, { formats: ['markdown'] });
    const started = await api('/v2/batch/scrape', { body: { urls: [`${origin}/batch-kept`, `${origin}/batch-never`], lockdown: true } });
    expect(started.status).toBe(200);
    const done = await waitForJobEnd(api, 'batch/scrape', started.body.id);
    expect(done.data.map((d: { metadata: { sourceURL: string } }) => d.metadata.sourceURL)).toEqual([`${origin}/batch-kept`]);
    const errors = await api(`/v2/batch/scrape/${started.body.id}/errors`);
    expect(errors.body.errors).toEqual([expect.objectContaining({ url: `${origin}/batch-never`, code: 'SCRAPE_LOCKDOWN_CACHE_MISS' })]);
    expect(hits.has('/batch-never')).toBe(false);
  });
});

describe('minAge', () => {
  it('answers from a copy at least that old, else 404 SCRAPE_NO_CACHED_DATA, never fetching', async () => {
    await firecrawl.scrape(`${origin}/aged`, { formats: ['markdown'] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = hits.get('/aged');
    const old = await firecrawl.scrape(`${origin}/aged`, { formats: ['markdown'], minAge: 1 });
    expect(old.metadata?.cacheState).toBe('hit');
    expect(old.metadata?.creditsUsed).toBe(1);
    await expect(firecrawl.scrape(`${origin}/aged`, { formats: ['markdown'], minAge: 3_600_000 })).rejects.toMatchObject({
      status: 404,
      code: 'SCRAPE_NO_CACHED_DATA',
    });
    expect(hits.get('/aged')).toBe(before);
  });
});

describe('fastMode', () => {
  it('keeps to plain HTTP: a page that needs JavaScript is returned as served', async () => {
    const rendered = await firecrawl.scrape(`${origin}/app`, { formats: ['markdown'], maxAge: 0 });
    expect(rendered.markdown).toContain('Rendered by script');
    const fast = await firecrawl.scrape(`${origin}/app`, { formats: ['markdown'], maxAge: 0, fastMode: true });
    expect(fast.markdown ?? '').not.toContain('Rendered by script');
    // Not answered from the rendered copy either: fastMode is in the cache key.
    const cached = await firecrawl.scrape(`${origin}/app`, { formats: ['markdown'], fastMode: true });
    expect(cached.markdown ?? '').not.toContain('Rendered by script');
  });
});

describe('bad input', () => {
  it.each([
    ['lockdown', { lockdown: 'yes' }],
    ['minAge', { minAge: -1 }],
    ['minAge', { minAge: 1.5 }],
    ['fastMode', { fastMode: 1 }],
    ['maxAge', { maxAge: -5 }],
  ])('refuses a bad %s naming it', async (field, extra) => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/x`, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });

  it('refuses lockdown and minAge where the cache cannot answer: with options that bypass it, on a crawl, on search scrapes', async () => {
    const withWait = await api('/v2/scrape', { body: { url: `${origin}/x`, lockdown: true, waitFor: 1000 } });
    expect(withWait.status).toBe(400);
    expect(withWait.body).toMatchObject({ code: 'BAD_REQUEST', details: { option: 'lockdown' } });
    const crawl = await api('/v2/crawl', { body: { url: `${origin}/x`, scrapeOptions: { minAge: 1 } } });
    expect(crawl.status).toBe(400);
    expect(crawl.body.details).toEqual({ option: 'minAge' });
    const search = await api('/v2/search', { body: { query: 'page', scrapeOptions: { formats: ['markdown'], lockdown: true } } });
    expect(search.status).toBe(400);
    expect(search.body.details).toEqual({ option: 'lockdown' });
  });
});
