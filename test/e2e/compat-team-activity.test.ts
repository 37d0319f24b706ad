/**
 * Firecrawl's smaller read routes (issue #34): GET /v1/scrape/{id} (a finished scrape, the v1
 * envelope) and GET /v2/team/activity (the team's jobs of the last 24 hours, newest first, with
 * Firecrawl's field names and cursor paging).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: FixtureSite;
let api: ReturnType<typeof apiClient>;
let other: ReturnType<typeof apiClient>;
const started: { id: string; endpoint: string; api_version: string; target: string | null }[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
  api = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'compat-activity'));
  other = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'compat-activity-other'));
  // Oldest first; the listing must answer them newest first.
  const v1 = await api('/v1/scrape', { body: { url: `${site.url}/article` } });
  started.push({ id: v1.body.data.metadata.scrapeId, endpoint: 'scrape', api_version: 'v1', target: `${site.url}/article` });
  const v2 = await api('/v2/scrape', { body: { url: `${site.url}/final` } });
  started.push({ id: v2.body.data.metadata.scrapeId, endpoint: 'scrape', api_version: 'v2', target: `${site.url}/final` });
  const search = await api('/v2/search', { body: { query: 'durable crawling' } });
  started.push({ id: search.body.id, endpoint: 'search', api_version: 'v2', target: 'durable crawling' });
  const map = await api('/v1/map', { body: { url: `${site.url}/article` } });
  expect(map.status).toBe(200);
  await other('/v2/scrape', { body: { url: `${site.url}/article` } });
});

afterAll(async () => {
  await site?.close();
});

describe('GET /v1/scrape/{id}', () => {
  it("answers the finished scrape's Document in the envelope POST answered it in; 404 for another team or a bad id", async () => {
    const posted = await api('/v1/scrape', { body: { url: `${site.url}/article`, formats: ['markdown'] } });
    const id = posted.body.data.metadata.scrapeId;
    const read = await api(`/v1/scrape/${id}`);
    expect(read).toMatchObject({ status: 200, body: { success: true, data: { markdown: posted.body.data.markdown, metadata: { scrapeId: id } } } });
    expect(await other(`/v1/scrape/${id}`)).toMatchObject({ status: 404, body: { success: false, code: 'JOB_NOT_FOUND' } });
    expect((await api('/v1/scrape/not-a-uuid')).status).toBe(404);
  });
});

describe('GET /v2/team/activity', () => {
  it("lists the team's jobs newest first with Firecrawl's fields, and none of another team's", async () => {
    const res = await api('/v2/team/activity');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, cursor: null, has_more: false });
    const listed = res.body.data as { id: string; endpoint: string; api_version: string; created_at: string; target: string | null }[];
    const ours = listed.filter((j) => started.some((s) => s.id === j.id));
    expect(ours).toEqual([...started].reverse().map((s) => ({ ...s, created_at: expect.any(String) })));
    expect(listed.find((j) => j.endpoint === 'map')).toMatchObject({ api_version: 'v1', target: `${site.url}/article` });
    const times = listed.map((j) => Date.parse(j.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const theirs = await other('/v2/team/activity');
    expect(theirs.body.data.map((j: { id: string }) => j.id)).not.toContain(started[0]!.id);
  });

  it('pages by cursor: limit 1 at a time reads every job once, in the same order', async () => {
    const all = (await api('/v2/team/activity')).body.data.map((j: { id: string }) => j.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: { id: string }[]; cursor: string | null; has_more: boolean } } = await api(`/v2/team/activity?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.body.data).toHaveLength(1);
      paged.push(res.body.data[0]!.id);
      expect(res.body.has_more).toBe(res.body.cursor !== null);
      cursor = res.body.cursor;
    } while (cursor);
    expect(paged).toEqual(all);
  });

  it('filters by endpoint; endpoints Trawl does not serve list nothing', async () => {
    const searches = await api('/v2/team/activity?endpoint=search');
    expect(searches.body.data.map((j: { id: string }) => j.id)).toEqual([started[2]!.id]);
    expect((await api('/v2/team/activity?endpoint=browser')).body).toEqual({ success: true, data: [], cursor: null, has_more: false });
  });

  it('refuses a bad parameter with 400 naming it', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['endpoint=nope', 'endpoint'],
      ['cursor=garbage', 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify({ t: 'x', id: 'y' })).toString('base64url')}`, 'cursor'],
    ]) {
      const res = await api(`/v2/team/activity?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toContain(name);
    }
  });
});
