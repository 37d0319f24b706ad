/**
 * The page cache (maxAge, storeInCache, cacheState/cachedAt) and the changeTracking format, end
 * to end against a fixture server whose pages the tests change between scrapes.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix } from '../../api/auth/api-keys.js';
import { createDb } from '../../db/connect.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { apiClient } from '../helpers/api-client.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey, databaseUrl } = e2eContext();
const api = apiClient(apiUrl, apiKey);

/** Pages the tests rewrite: path → [status, body]; every request is counted per path. */
const pages = new Map<string, { status: number; body: string }>();
const hits = new Map<string, number>();
let server: http.Server;
let base: string;
let otherTeamKey: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const page = pages.get(path) ?? { status: 404, body: '<html><body><h1>Not found</h1></body></html>' };
    res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const db = createDb(databaseUrl, { maxConnections: 1 });
  const team = await findOrCreateTeam(db, `cache-other-${randomUUID()}`);
  otherTeamKey = generateApiKey();
  await insertApiKey(db, { teamId: team.id, keyHash: hashApiKey(otherTeamKey), keyPrefix: keyPrefix(otherTeamKey), scopes: null });
  await db.destroy();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** A fresh page for one test, so runs and tests never share cache entries or history. */
function page(text: string): { url: string; path: string; set(text: string, status?: number): void } {
  const path = `/p/${randomUUID()}`;
  const set = (t: string, status = 200) =>
    pages.set(path, {
      status,
      body: `<!doctype html><html><head><title>Fixture</title></head><body><main><h1>Fixture page</h1>
<p>${t}</p><p>This paragraph is here so the page has enough text to count as content.</p></main></body></html>`,
    });
  set(text);
  return { url: `${base}${path}`, path, set };
}

async function scrape(body: Record<string, unknown>, key?: string) {
  const res = await api('/v2/scrape', { body, ...(key && { key }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('page cache', () => {
  it('serves the second scrape from the cache with the first scrape’s time, and bills both', async () => {
    const p = page('first version');
    const first = await scrape({ url: p.url });
    expect(first.metadata.cacheState).toBe('miss');
    expect(new Date(first.metadata.cachedAt).toISOString()).toBe(first.metadata.cachedAt);
    p.set('second version');
    const second = await scrape({ url: p.url });
    expect(second.metadata).toMatchObject({
      cacheState: 'hit',
      cachedAt: first.metadata.cachedAt,
      sourceURL: p.url,
      creditsUsed: 1,
      statusCode: 200,
    });
    expect(second.metadata.scrapeId).not.toBe(first.metadata.scrapeId);
    expect(second.markdown).toBe(first.markdown);
    expect(second.markdown).toContain('first version');
    expect(hits.get(p.path)).toBe(1);
    // The hit is a job of its own: GET /v2/scrape/:id finds its Document.
    const stored = await api(`/v2/scrape/${second.metadata.scrapeId}`);
    expect(stored.body.data.metadata.cacheState).toBe('hit');
  });

  it('maxAge 0 always fetches and reports no cacheState', async () => {
    const p = page('always fresh');
    await scrape({ url: p.url, maxAge: 0 });
    const again = await scrape({ url: p.url, maxAge: 0 });
    expect(again.metadata.cacheState).toBeUndefined();
    expect(again.metadata.cachedAt).toBeUndefined();
    expect(hits.get(p.path)).toBe(2);
  });

  it('a copy older than maxAge is not served', async () => {
    const p = page('ageing');
    await scrape({ url: p.url });
    await new Promise((r) => setTimeout(r, 1500));
    const again = await scrape({ url: p.url, maxAge: 1000 });
    expect(again.metadata.cacheState).toBe('miss');
    expect(hits.get(p.path)).toBe(2);
  });

  it('storeInCache false writes nothing: the next scrape is a miss', async () => {
    const p = page('not stored');
    const first = await scrape({ url: p.url, storeInCache: false });
    expect(first.metadata.cacheState).toBe('miss');
    expect(first.metadata.cachedAt).toBeUndefined();
    const second = await scrape({ url: p.url });
    expect(second.metadata.cacheState).toBe('miss');
    expect(hits.get(p.path)).toBe(2);
  });

  it('custom headers bypass the cache: no cacheState, and nothing stored', async () => {
    const p = page('with headers');
    const first = await scrape({ url: p.url, headers: { 'x-test': '1' } });
    expect(first.metadata.cacheState).toBeUndefined();
    const second = await scrape({ url: p.url });
    expect(second.metadata.cacheState).toBe('miss');
    expect(hits.get(p.path)).toBe(2);
  });

  it('mobile is a different key; the desktop copy is still served to desktop', async () => {
    const p = page('device');
    await scrape({ url: p.url });
    const mobile = await scrape({ url: p.url, mobile: true });
    expect(mobile.metadata.cacheState).toBe('miss');
    const desktop = await scrape({ url: p.url });
    expect(desktop.metadata.cacheState).toBe('hit');
    expect(hits.get(p.path)).toBe(2);
  });

  it('is per team: another team never gets this team’s copy', async () => {
    const p = page('team copy');
    await scrape({ url: p.url });
    const other = await scrape({ url: p.url }, otherTeamKey);
    expect(other.metadata.cacheState).toBe('miss');
    expect(hits.get(p.path)).toBe(2);
  });

  it('does not cache error pages', async () => {
    const p = page('gone');
    p.set('server error', 500);
    await scrape({ url: p.url });
    const again = await scrape({ url: p.url });
    expect(again.metadata.cacheState).toBe('miss');
    expect(hits.get(p.path)).toBe(2);
  });
});

describe('batch pages', () => {
  it('always fetch and report no cacheState, but store for later scrapes; they track changes too', async () => {
    const p = page('batched');
    await scrape({ url: p.url });
    const batch = async () => {
      const started = await api('/v2/batch/scrape', {
        body: { urls: [p.url], formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'], tag: 'batch' }] },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const done = await waitForJobEnd(api, 'batch/scrape', started.body.id);
      expect(done.status).toBe('completed');
      return done.data[0];
    };
    const first = await batch();
    expect(first.metadata.cacheState).toBeUndefined();
    expect(first.changeTracking.changeStatus).toBe('new');
    p.set('batched again');
    const second = await batch();
    expect(second.changeTracking.changeStatus).toBe('changed');
    expect(second.changeTracking.diff.text).toContain('+batched again');
    expect(hits.get(p.path)).toBe(3);

    // changeTracking bypasses the cache, so this plain batch is what stores the page.
    const plain = await api('/v2/batch/scrape', { body: { urls: [p.url] } });
    await waitForJobEnd(api, 'batch/scrape', plain.body.id);
    const later = await scrape({ url: p.url });
    expect(later.metadata.cacheState).toBe('hit');
    expect(later.markdown).toContain('batched again');
    expect(hits.get(p.path)).toBe(4);
  });
});

describe('changeTracking', () => {
  const tracking = (tag?: string) => ['markdown', { type: 'changeTracking', modes: ['git-diff'], ...(tag && { tag }) }];

  it('new, then same, then changed with a git diff, then removed on a 404', async () => {
    const p = page('Price: 10 EUR');
    const first = await scrape({ url: p.url, formats: tracking() });
    expect(first.changeTracking).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
    // Change tracking must compare a fresh fetch, so it never reads (or reports) the cache.
    expect(first.metadata.cacheState).toBeUndefined();

    const same = await scrape({ url: p.url, formats: tracking() });
    expect(same.changeTracking).toMatchObject({ changeStatus: 'same', visibility: 'visible' });
    expect(Date.parse(same.changeTracking.previousScrapeAt)).not.toBeNaN();
    expect(same.changeTracking.diff).toBeUndefined();

    p.set('Price: 12 EUR');
    const changed = await scrape({ url: p.url, formats: tracking() });
    expect(changed.changeTracking.changeStatus).toBe('changed');
    expect(Date.parse(changed.changeTracking.previousScrapeAt)).toBeGreaterThanOrEqual(Date.parse(same.changeTracking.previousScrapeAt));
    const { text, json } = changed.changeTracking.diff;
    expect(text).toMatch(/^diff --git /);
    expect(text).toContain('-Price: 10 EUR');
    expect(text).toContain('+Price: 12 EUR');
    expect(json.files[0].chunks[0].changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'del', content: '-Price: 10 EUR' }),
        expect.objectContaining({ type: 'add', content: '+Price: 12 EUR' }),
      ]),
    );
    expect(hits.get(p.path)).toBe(3);

    pages.delete(p.path);
    const removed = await scrape({ url: p.url, formats: tracking() });
    expect(removed.metadata.statusCode).toBe(404);
    expect(removed.changeTracking.changeStatus).toBe('removed');
  });

  it('the blocks mode (Trawl) marks each changed block noise or substantive, with its noise categories', async () => {
    const blocks = (noise?: string[]) => ['markdown', { type: 'changeTracking', modes: ['blocks'], tag: 'blocks', ...(noise && { noise }) }];
    const p = page('The widget costs $19.99, updated 3 minutes ago.');
    await scrape({ url: p.url, formats: blocks() });
    p.set('The widget costs $19.99, updated 2 hours ago.');
    const timestamp = await scrape({ url: p.url, formats: blocks() });
    expect(timestamp.changeTracking.changeStatus).toBe('changed');
    expect(timestamp.changeTracking.blocks.stats).toMatchObject({ modified: 1, noise: 1, substantive: 0 });
    expect(timestamp.changeTracking.diff).toBeUndefined();

    p.set('The widget costs $24.99, updated 2 hours ago.');
    const price = await scrape({ url: p.url, formats: blocks() });
    expect(price.changeTracking.blocks.changes).toEqual([
      expect.objectContaining({
        type: 'modified',
        significance: 'substantive',
        before: 'The widget costs $19.99, updated 2 hours ago.',
        after: 'The widget costs $24.99, updated 2 hours ago.',
      }),
    ]);
    p.set('The widget costs $21.99, updated 2 hours ago.');
    const cheaper = await scrape({ url: p.url, formats: blocks(['prices']) });
    expect(cheaper.changeTracking.blocks.changes).toEqual([expect.objectContaining({ type: 'modified', significance: 'noise' })]);

    const typo = await api('/v2/scrape', { body: { url: p.url, formats: blocks(['weather']) } });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body)).toContain('noise');
  });

  it('keeps a separate history per tag', async () => {
    const p = page('tagged');
    await scrape({ url: p.url, formats: tracking('a') });
    const againA = await scrape({ url: p.url, formats: tracking('a') });
    expect(againA.changeTracking.changeStatus).toBe('same');
    const b = await scrape({ url: p.url, formats: tracking('b') });
    expect(b.changeTracking).toMatchObject({ changeStatus: 'new', previousScrapeAt: null });
    const untagged = await scrape({ url: p.url, formats: tracking() });
    expect(untagged.changeTracking.changeStatus).toBe('new');
  });

  it('refuses the json mode without a model, naming it (test/e2e-slow/llm-jobs.test.ts has it with one)', async () => {
    const p = page('json mode');
    const res = await api('/v2/scrape', {
      body: { url: p.url, formats: ['markdown', { type: 'changeTracking', modes: ['json'] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('LLM_NOT_CONFIGURED');
    expect(JSON.stringify(res.body)).toContain('changeTracking.modes.json');
    expect(hits.get(p.path)).toBeUndefined();
  });

  it('still requires the markdown format', async () => {
    const res = await api('/v2/scrape', { body: { url: `${base}/x`, formats: [{ type: 'changeTracking' }] } });
    expect(res.status).toBe(400);
  });
});
