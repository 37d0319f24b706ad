/**
 * The search fields today's clients send beyond Trawl's own: Firecrawl's cloud products
 * (Alexandria tools, the developer index, anonymised search, asyncScraping) accepted with a warning
 * that says what was not done, `highlights` and `safe` honoured by the built-in index, and bad
 * values or typos still a 400 naming the field.
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

const DESCRIPTION = 'A page about small animals';
const PAGE = `<html lang="en"><head><title>Axolotl facts</title><meta name="description" content="${DESCRIPTION}"></head><body><article>
<h1>Axolotl facts</h1><p>Many readers come here for pictures of ponds and lakes in the mountains of central Mexico.</p>
<p>The axolotl regrows lost limbs within weeks, and even parts of its heart and brain.</p></article></body></html>`;

let site: http.Server;
let pageUrl: string;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;

beforeAll(async () => {
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/axolotl`;
  const key = await createKeyWithCli(databaseUrl, 'compat-search');
  api = apiClient(apiUrl, key);
  firecrawl = new Firecrawl({ apiKey: key, apiUrl });
  const started = await api('/v2/batch/scrape', { body: { urls: [pageUrl], formats: ['markdown'] } });
  expect(started.status).toBe(200);
  expect((await waitForJobEnd(api, 'batch/scrape', started.body.id)).completed).toBe(1);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

describe("Firecrawl's cloud-only search fields", () => {
  it('answers web results for sources web + alexandria, domainTools and toolDetail, and says no tools ran (official SDK)', async () => {
    const result = await firecrawl.search('axolotl', { sources: ['web', 'alexandria'], domainTools: true, toolDetail: 'full' });
    expect(result.web?.map((r) => (r as { url: string }).url)).toEqual([pageUrl]);
    expect(result).not.toHaveProperty('tools');
    expect(result.warning).toMatch(/Alexandria tool catalogue .* no tools were matched or returned/);
  });

  it('answers alexandria alone with no result lists, and says why', async () => {
    const res = await api('/v2/search', { body: { query: 'axolotl', sources: [{ type: 'alexandria' }] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({});
    expect(res.body.creditsUsed).toBe(0);
    expect(res.body.warning).toMatch(/Alexandria/);
  });

  it('gives ordinary web results for the developer category (and its aliases), saying so', async () => {
    for (const category of ['developer', 'code', { type: 'repo' }]) {
      const res = await api('/v2/search', { body: { query: 'axolotl', categories: [category] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.web.map((r: { url: string }) => r.url)).toEqual([pageUrl]);
      expect(res.body.warning).toMatch(/developer category .* ordinary web results/);
    }
  });

  it('runs enterprise anon as an ordinary search with a warning, refuses zdr, and takes default silently', async () => {
    const anon = await firecrawl.search('axolotl', { enterprise: ['anon'] });
    expect(anon.web).toHaveLength(1);
    expect(anon.warning).toMatch(/enterprise anon .* ordinary one/);
    const zdr = await api('/v2/search', { body: { query: 'axolotl', enterprise: ['zdr'] } });
    expect(zdr.status).toBe(403);
    expect(zdr.body).toMatchObject({ success: false, error: expect.stringMatching(/Zero Data Retention/), details: { option: 'enterprise' } });
    const plain = await api('/v2/search', { body: { query: 'axolotl', enterprise: ['default'], asyncScraping: false, toolDetail: 'compact', domainTools: false } });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('warning');
  });

  it('says asyncScraping had no effect', async () => {
    const res = await api('/v2/search', { body: { query: 'axolotl', asyncScraping: true } });
    expect(res.status).toBe(200);
    expect(res.body.warning).toMatch(/asyncScraping has no effect/);
  });
});

describe('highlights and safe on the built-in index', () => {
  it('describes a result by the passage around the query unless highlights is false', async () => {
    const byDefault = await firecrawl.search('regrows limbs');
    const highlighted = (byDefault.web![0] as { description: string }).description;
    expect(highlighted).toContain('regrows lost limbs');
    expect(highlighted).not.toContain(DESCRIPTION);
    const explicit = await firecrawl.search('regrows limbs', { highlights: true });
    expect((explicit.web![0] as { description: string }).description).toBe(highlighted);
    const plain = await firecrawl.search('regrows limbs', { highlights: false });
    expect((plain.web![0] as { description: string }).description).toBe(DESCRIPTION);
  });

  it('says safe search does not apply to the team’s own pages', async () => {
    const res = await api('/v2/search', { body: { query: 'axolotl', safe: true } });
    expect(res.status).toBe(200);
    expect(res.body.data.web).toHaveLength(1);
    expect(res.body.warning).toMatch(/no safe-search filter/);
    const off = await api('/v2/search', { body: { query: 'axolotl', safe: false } });
    expect(off.body).not.toHaveProperty('warning');
  });
});

describe('bad values in the new fields', () => {
  it.each([
    ['toolDetail', { toolDetail: 'everything' }],
    ['domainTools', { domainTools: 'yes' }],
    ['highlights', { highlights: 1 }],
    ['safe', { safe: 'strict' }],
    ['enterprise', { enterprise: ['secret'] }],
    ['asyncScraping', { asyncScraping: 'later' }],
    ['sources', { sources: ['alexandrina'] }],
    ['categories', { categories: ['developer', 'github'] }],
  ])('%s', async (field, extra) => {
    const res = await api('/v2/search', { body: { query: 'axolotl', ...extra } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(res.body.error).toContain(field);
  });

  it('still refuses a key no Firecrawl client sends, naming it', async () => {
    const res = await api('/v2/search', { body: { query: 'axolotl', domainTool: true } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('domainTool');
  });
});
