/**
 * POST /v2/search and /v1/search on the real stack: the built-in index over each team's own
 * stored pages (isolation, sources, tbs, lang, domains, categories, scraping the results,
 * timeout, credits, validation, the official SDK), and SearXNG through a fake instance.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startFakeSearxng, type FakeSearxng } from '../helpers/fake-searxng.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from '../e2e/context.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();

const html = (title: string, body: string, head = '', lang = 'en') =>
  `<html lang="${lang}"><head><title>${title}</title><meta name="description" content="${title} page">${head}</head><body><article><h1>${title}</h1>${body}</article></body></html>`;

/** Served on every host; `*.localhost` names reach it, so domain filters have real hosts. */
const PAGES: Record<string, string> = {
  '/water-bears': html(
    'Water bears',
    '<p>The tardigrade survives boiling, freezing and the vacuum of space. Tardigrades are tiny.</p><img src="https://img.example/tardigrade.png" alt="a tardigrade under the microscope">',
    '<meta property="og:type" content="article"><meta property="article:published_time" content="2020-03-01T00:00:00Z">',
  ),
  '/moss': html('Moss', '<p>Moss is where a tardigrade usually lives, in the thin film of water on its leaves.</p>', '', 'de'),
  '/bears': html('Brown bears', '<p>Brown bears eat salmon and berries and sleep through the winter.</p>'),
  '/slow': html('Slow tardigrade page', '<p>Another tardigrade page, served slowly.</p>'),
};

let site: http.Server;
let port: number;
let doomed: http.Server;
let doomedUrl: string;
let slowMs = 0;
let teamA: ReturnType<typeof apiClient>;
let teamB: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;
const url = (host: string, path: string) => `http://${host}.localhost:${port}${path}`;

async function store(api: ReturnType<typeof apiClient>, urls: string[]) {
  const started = await api('/v2/batch/scrape', { body: { urls, formats: ['markdown'] } });
  expect(started.status).toBe(200);
  const done = await waitForJobEnd(api, 'batch/scrape', started.body.id);
  expect(done.completed).toBe(urls.length);
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const body = PAGES[path];
    const send = () => (body ? res.writeHead(200, { 'content-type': 'text/html' }).end(body) : res.writeHead(404).end());
    if (path === '/slow' && slowMs > 0) setTimeout(send, slowMs);
    else send();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  port = (site.address() as AddressInfo).port;
  doomed = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html('Doomed', '<p>A tardigrade page whose server goes away.</p>')));
  doomed.listen(0, '127.0.0.1');
  await once(doomed, 'listening');
  doomedUrl = `http://127.0.0.1:${(doomed.address() as AddressInfo).port}/doomed`;

  const [keyA, keyB] = await Promise.all([createKeyWithCli(databaseUrl, 'search-team-a'), createKeyWithCli(databaseUrl, 'search-team-b')]);
  teamA = apiClient(apiUrl, keyA);
  teamB = apiClient(apiUrl, keyB);
  firecrawl = new Firecrawl({ apiKey: keyA, apiUrl });
  await store(teamA, [url('a', '/water-bears'), url('a', '/moss'), url('b', '/bears'), url('b', '/slow'), doomedUrl]);
  await store(teamB, [url('b', '/bears')]);
  await new Promise((resolve) => doomed.close(resolve));
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

const webUrls = (res: { body: { data: { web?: { url: string }[] } } }) => (res.body.data.web ?? []).map((r) => new URL(r.url).pathname).sort();

describe('the built-in index', () => {
  it('finds the team’s own pages, ranked, and never another team’s (official SDK)', async () => {
    const result = await firecrawl.search('tardigrade');
    expect(result.web?.map((r) => new URL((r as { url: string }).url).pathname).sort()).toEqual(['/doomed', '/moss', '/slow', '/water-bears']);
    expect(result).not.toHaveProperty('news');
    expect(result).not.toHaveProperty('images');
    const first = result.web![0] as { url: string; title: string; description: string };
    expect(first.title).toBeTruthy();
    const other = await teamB('/v2/search', { body: { query: 'tardigrade' } });
    expect(other.body.data.web).toEqual([]);
    const bears = await teamB('/v2/search', { body: { query: 'salmon' } });
    expect(webUrls(bears)).toEqual(['/bears']);
  });

  it('answers news from pages with article metadata and images with their alt text', async () => {
    const res = await teamA('/v2/search', { body: { query: 'tardigrade', sources: ['web', 'news', 'images'] } });
    expect(res.status).toBe(200);
    expect(res.body.data.news).toEqual([expect.objectContaining({ url: url('a', '/water-bears'), title: 'Water bears', date: '2020-03-01T00:00:00.000Z', position: 1 })]);
    expect(res.body.data.images).toEqual([
      { url: url('a', '/water-bears'), title: 'a tardigrade under the microscope', imageUrl: 'https://img.example/tardigrade.png', position: 1 },
    ]);
  });

  it('filters by tbs (publication date, else scrape date), lang, domains and category', async () => {
    expect(webUrls(await teamA('/v2/search', { body: { query: 'tardigrade', tbs: 'qdr:y' } }))).toEqual(['/doomed', '/moss', '/slow']);
    expect(webUrls(await teamA('/v2/search', { body: { query: 'tardigrade', tbs: 'cdr:1,cd_min:1/1/2020,cd_max:12/31/2020' } }))).toEqual(['/water-bears']);
    expect(webUrls(await teamA('/v2/search', { body: { query: 'tardigrade', lang: 'de' } }))).toEqual(['/moss']);
    expect(webUrls(await teamA('/v2/search', { body: { query: 'tardigrade', includeDomains: ['a.localhost'] } }))).toEqual(['/moss', '/water-bears']);
    expect(webUrls(await teamA('/v2/search', { body: { query: 'tardigrade', excludeDomains: ['localhost'] } }))).toEqual(['/doomed']);
    expect(webUrls(await teamA('/v2/search', { body: { query: 'tardigrade', categories: ['github'] } }))).toEqual([]);
  });

  it('scrapes the results when formats are asked for, keeping a failed one with its error, and charges for both', async () => {
    const res = await teamA('/v2/search', { body: { query: 'tardigrade', limit: 10, scrapeOptions: { formats: ['markdown'] } } });
    expect(res.status).toBe(200);
    const web = res.body.data.web as { url: string; markdown?: string; metadata?: { statusCode: number; error?: string } }[];
    expect(web).toHaveLength(4);
    const failed = web.find((r) => r.url === doomedUrl)!;
    expect(failed.markdown).toBeUndefined();
    expect(failed.metadata).toMatchObject({ statusCode: expect.any(Number), error: expect.any(String) });
    const ok = web.find((r) => r.url === url('a', '/moss'))!;
    expect(ok.markdown).toContain('thin film of water');
    // 2 for up to ten results, 1 for each of the three pages scraped.
    expect(res.body.creditsUsed).toBe(5);
    const plain = await teamA('/v2/search', { body: { query: 'tardigrade' } });
    expect(plain.body.creditsUsed).toBe(2);
    expect(plain.body.data.web[0].markdown).toBeUndefined();
    const sdk = await firecrawl.search('salmon', { sources: ['web', 'images'], scrapeOptions: { formats: ['markdown', 'links'] } });
    expect(sdk.web).toEqual([expect.objectContaining({ url: url('b', '/bears'), markdown: expect.stringContaining('eat salmon'), links: expect.any(Array) })]);
    expect(sdk.images).toEqual([]);
  });

  it('answers 408 when the search and its scrapes do not fit the timeout', async () => {
    slowMs = 8_000;
    try {
      const res = await teamA('/v2/search', { body: { query: 'slowly', timeout: 2_000, scrapeOptions: { formats: ['markdown'] } } });
      expect(res.status).toBe(408);
      expect(res.body.success).toBe(false);
    } finally {
      slowMs = 0;
    }
  });

  it('takes every body field, with per-source overrides, and warns about what the index ignores', async () => {
    const res = await teamA('/v2/search', {
      body: {
        query: 'tardigrade',
        limit: 3,
        sources: [{ type: 'web', tbs: 'qdr:y', lang: 'en', country: 'us', location: 'Berlin', filter: 'dup' }, { type: 'news' }],
        categories: [{ type: 'research' }],
        tbs: 'qdr:d',
        filter: 'dup',
        lang: 'de',
        country: 'de',
        timeout: 30_000,
        ignoreInvalidURLs: true,
        excludeDomains: ['b.localhost'],
        scrapeOptions: { onlyMainContent: true },
        origin: 'e2e',
        integration: 'search-test',
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['news', 'web']);
    // The research category keeps only academic hosts, which none of the team's pages are on.
    expect(res.body.data).toEqual({ web: [], news: [] });
    expect(res.body.warning).toMatch(/location/);
    expect(res.body.creditsUsed).toBe(0);
    // Per-source fields win over the top-level ones, which alone would find nothing: the web source
    // searches English pages of this year, the news source English articles of 2020.
    const perSource = await teamA('/v2/search', {
      body: {
        query: 'tardigrade',
        lang: 'de',
        tbs: 'qdr:h',
        sources: [{ type: 'web', lang: 'en', tbs: 'qdr:y' }, { type: 'news', lang: 'en', tbs: 'cdr:1,cd_min:1/1/2020,cd_max:12/31/2020' }],
        excludeDomains: ['b.localhost'],
        // No formats: nothing is scraped, whatever else scrapeOptions says.
        scrapeOptions: { onlyMainContent: true },
      },
    });
    expect(webUrls(perSource)).toEqual(['/doomed']);
    expect(perSource.body.data.web[0].markdown).toBeUndefined();
    expect(perSource.body.data.news.map((r: { url: string }) => r.url)).toEqual([url('a', '/water-bears')]);
    expect(perSource.body.creditsUsed).toBe(2);
    const pdf = await teamA('/v2/search', { body: { query: 'tardigrade', categories: ['pdf'] } });
    expect(pdf.body.data.web).toEqual([]);
  });

  it('refuses bad bodies with 400 and the envelope', async () => {
    const bad = [
      {},
      { query: '   ' },
      { query: 'x', limit: 1.5 },
      { query: 'x', sources: [] },
      { query: 'x', sources: [{ type: 'web', unknown: 1 }] },
      { query: 'x', sources: [{ type: 'web', tbs: 'qdr:q' }] },
      { query: 'x', lang: 'english' },
      { query: 'x', country: 'usa' },
      { query: 'x', timeout: 400_000 },
      { query: 'x', includeDomains: ['a.com:8080'] },
      { query: 'x', scrapeOptions: { formats: ['nonsense'] } },
      { query: 'x', ignoreInvalidURLs: 'yes' },
      { query: '' },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 101 },
      { query: 'x', sources: ['maps'] },
      { query: 'x', tbs: 'qdr:z' },
      { query: 'x', includeDomains: ['a.com'], excludeDomains: ['b.com'] },
      { query: 'x', includeDomains: ['https://a.com/path'] },
      { query: 'x', categories: ['videos'] },
      { query: 'x', timeout: 10 },
      { query: 'x', unknown: true },
    ];
    for (const body of bad) {
      const res = await teamA('/v2/search', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: expect.any(String) });
    }
  });

  it('answers the v1 shape: a flat list of web results (v1 client)', async () => {
    const res = await teamA('/v1/search', { body: { query: 'salmon' } });
    expect(res.body).toMatchObject({ success: true, data: [expect.objectContaining({ url: url('b', '/bears') })] });
    const v1 = await firecrawl.v1.search('salmon', {});
    expect(v1.success).toBe(true);
    expect(v1.data.map((d) => d.url)).toEqual([url('b', '/bears')]);
  });
});

describe('SearXNG', () => {
  let searxng: FakeSearxng;
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  let sdk: Firecrawl;

  beforeAll(async () => {
    searxng = await startFakeSearxng();
    stack = await startStack({
      databaseUrl,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      env: { LOG_LEVEL: 'warn', TEMPORAL_TASK_QUEUE: 'trawl-searxng', ALLOW_PRIVATE_NETWORK: 'true', SEARXNG_ENDPOINT: searxng.url },
      log: () => undefined,
    });
    const key = await createKeyWithCli(databaseUrl, 'searxng-team');
    api = apiClient(stack.apiUrl, key);
    sdk = new Firecrawl({ apiKey: key, apiUrl: stack.apiUrl });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
    await searxng?.close();
  });

  it('returns web, news and images, paging until the limit, with categories, language and time range mapped', async () => {
    searxng.requests.length = 0;
    const result = await sdk.search('otters', { limit: 15, sources: ['web', 'news', 'images'], tbs: 'qdr:w' });
    expect(result.web).toHaveLength(15);
    expect(result.news).toHaveLength(15);
    expect(result.images).toHaveLength(15);
    expect(result.web![14]).toMatchObject({ url: 'https://general.example/15', title: 'otters general 15', description: 'About otters, result 15', position: 15 });
    expect(result.news![0]).toMatchObject({ url: 'https://news.example/1', snippet: 'About otters, result 1', date: expect.any(String), imageUrl: 'https://img.example/news-1.jpg' });
    expect(result.images![0]).toMatchObject({ imageUrl: 'https://img.example/1.png', imageWidth: 640, imageHeight: 480 });
    const web = searxng.requests.filter((p) => p.get('categories') === 'general');
    expect(web.map((p) => p.get('pageno'))).toEqual(['1', '2']);
    expect(web[0]!.get('time_range')).toBe('week');
    expect(result.warning).toContain('slowengine');
    searxng.requests.length = 0;
    await api('/v2/search', { body: { query: 'otters', sources: [{ type: 'web', lang: 'de', country: 'at' }] } });
    expect(searxng.requests[0]!.get('language')).toBe('de-AT');
  });

  it('filters by domain and charges 2 credits per 10 results', async () => {
    const res = await api('/v2/search', { body: { query: 'otters', limit: 12, excludeDomains: ['news.example'] } });
    expect(res.body.data.web).toHaveLength(12);
    expect(res.body.creditsUsed).toBe(4);
    const only = await api('/v2/search', { body: { query: 'otters', includeDomains: ['elsewhere.example'] } });
    expect(only.body.data.web).toEqual([]);
  });

  it('turns a failing or misconfigured instance into 502 SEARCH_PROVIDER_ERROR, never an empty success', async () => {
    for (const mode of ['error', 'forbidden'] as const) {
      searxng.mode = mode;
      const res = await api('/v2/search', { body: { query: 'otters' } });
      expect(res.status, mode).toBe(502);
      expect(res.body).toMatchObject({ success: false, code: 'SEARCH_PROVIDER_ERROR' });
    }
    searxng.mode = 'slow';
    const slow = await api('/v2/search', { body: { query: 'otters', timeout: 1_500 } });
    expect(slow.status).toBe(408);
    searxng.mode = 'ok';
  });
});
