/**
 * Zero data retention (issue #34 §3). A team whose plan does not allow it gets Firecrawl's refusal
 * on every job kind; for a team whose plan does, a ZDR job writes no page-cache copy, search-index
 * entry, change-tracking snapshot or stored media, and its Documents lose their content once
 * delivered (or when the purge finds them uncollected past the window). The stores are read in
 * Postgres after each job, and the same team's ordinary scrape shows they would have filled.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection, WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, type Db } from '../../db/connect.js';
import { purgeScheduleId } from '../../lib/workflow-ids.js';
import { ZeroDataRetentionAttribute } from '../../workflows/search-attributes.js';
import { apiClient } from '../helpers/api-client.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl, temporalAddress, taskQueue } = e2eContext();
const ZDR_REFUSED = "Zero data retention is enabled for this team. If you're interested in ZDR, please contact support@firecrawl.com";
const WORD = 'quokkazdrmarker';
let server: http.Server;
let origin: string;
let db: Db;
let connection: Connection;
let zdrTeamId: string;
let zdr: ReturnType<typeof apiClient>;
let zdrSdk: Firecrawl;
let off: ReturnType<typeof apiClient>;
/** The workflow ids of the ZDR jobs below, whose histories the last test finds deleted. */
const zdrWorkflows: string[] = [];
let ordinaryWorkflow: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const links = ['/a', '/b', '/c'].map((p) => `<a href="${p}">${p}</a>`).join(' ');
    // A page that differs per request, so change tracking has something to record.
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<html><head><title>Page ${path}</title></head><body><h1>Page ${path}</h1><p>The ${WORD} lives at ${path}. ${'Filler text for the index. '.repeat(10)}</p>${links}</body></html>`,
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = createDb(databaseUrl, { maxConnections: 2 });
  connection = await Connection.connect({ address: temporalAddress });

  const zdrKey = await createKeyWithCli(databaseUrl, 'compat-zdr-on');
  await runAdmin(databaseUrl, ['teams', 'set', 'compat-zdr-on', '--zdr', 'true']);
  zdrTeamId = (await db.selectFrom('teams').select('id').where('name', '=', 'compat-zdr-on').executeTakeFirstOrThrow()).id;
  zdr = apiClient(apiUrl, zdrKey);
  zdrSdk = new Firecrawl({ apiKey: zdrKey, apiUrl });
  off = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'compat-zdr-off'));
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await connection?.close();
  await db?.destroy();
});

/** Rows the ZDR team has in each store a page can leave a trace in. */
async function stores() {
  const count = async (table: 'page_cache' | 'search_documents' | 'change_snapshots' | 'media') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('team_id', '=', zdrTeamId).executeTakeFirstOrThrow()).n);
  return { pageCache: await count('page_cache'), searchIndex: await count('search_documents'), snapshots: await count('change_snapshots'), media: await count('media') };
}
const EMPTY = { pageCache: 0, searchIndex: 0, snapshots: 0, media: 0 };

/** What the job's rows still hold: Documents with content, its URL, query and result. */
async function leftOf(jobId: string) {
  const job = await db.selectFrom('jobs').select(['url', 'options', 'result', 'zero_data_retention']).where('id', '=', jobId).executeTakeFirstOrThrow();
  const docs = await db.selectFrom('documents').select(['document', 'url']).where('job_id', '=', jobId).execute();
  return {
    zdr: job.zero_data_retention,
    url: job.url,
    query: (job.options as Record<string, unknown>).query,
    result: job.result,
    documents: docs.length,
    withContent: docs.filter((d) => d.document !== null || d.url !== '').length,
  };
}

describe('a team whose plan does not allow zero data retention', () => {
  it("gets Firecrawl's refusal on scrape, batch scrape and crawl (v1 and v2), and search's own 403", async () => {
    const url = `${origin}/a`;
    for (const [path, body] of [
      ['/v2/scrape', { url, zeroDataRetention: true }],
      ['/v1/scrape', { url, zeroDataRetention: true }],
      ['/v2/batch/scrape', { urls: [url], zeroDataRetention: true }],
      ['/v1/batch/scrape', { urls: [url], zeroDataRetention: true }],
      ['/v2/crawl', { url, zeroDataRetention: true }],
      ['/v1/crawl', { url, zeroDataRetention: true }],
    ] as const) {
      const res = await off(path, { body });
      expect(res, path).toMatchObject({ status: 400, body: { success: false, error: ZDR_REFUSED, details: { option: 'zeroDataRetention' } } });
    }
    const search = await off('/v2/search', { body: { query: WORD, enterprise: ['zdr'] } });
    expect(search).toMatchObject({ status: 403, body: { success: false, error: 'Zero Data Retention (ZDR) search is not enabled for your team.' } });
    // Nothing was started for any of them.
    const team = await db.selectFrom('teams').select('id').where('name', '=', 'compat-zdr-off').executeTakeFirstOrThrow();
    expect(await db.selectFrom('jobs').select('id').where('team_id', '=', team.id).execute()).toEqual([]);
  });
});

describe('a team whose plan allows it', () => {
  it('scrape: the Document is answered, nothing is stored, and it is gone once delivered', async () => {
    const res = await zdr('/v2/scrape', { body: { url: `${origin}/a`, zeroDataRetention: true } });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain(WORD);
    // Firecrawl's price: a page plus 1 for zero data retention.
    expect(res.body.data.metadata.creditsUsed).toBe(2);
    const id: string = res.body.data.metadata.scrapeId;
    zdrWorkflows.push(`scrape-${id}`);
    expect(await stores()).toEqual(EMPTY);
    expect(await leftOf(id)).toMatchObject({ zdr: true, url: null, documents: 1, withContent: 0 });
    expect((await zdr(`/v2/scrape/${id}`)).status).toBe(404);
  });

  it('scrape with changeTracking and a screenshot: no snapshot, the screenshot inline rather than stored', async () => {
    const tracking = { type: 'changeTracking' as const, modes: ['git-diff' as const] };
    const doc = await zdrSdk.scrape(`${origin}/b`, { formats: ['markdown', tracking, 'screenshot'], zeroDataRetention: true });
    expect(doc.changeTracking).toMatchObject({ changeStatus: 'new' });
    expect(doc.screenshot).toMatch(/^data:image\//);
    expect(await stores()).toEqual(EMPTY);
    // A second one is 'new' again: the first left nothing to compare with.
    const again = await zdrSdk.scrape(`${origin}/b`, { formats: ['markdown', tracking], zeroDataRetention: true });
    expect(again.changeTracking).toMatchObject({ changeStatus: 'new' });
  });

  it('batch scrape (official SDK): both pages delivered, then forgotten; nothing stored', async () => {
    const job = await zdrSdk.batchScrape([`${origin}/a`, `${origin}/b`], { options: { formats: ['markdown'] }, zeroDataRetention: true, pollInterval: 0.2 });
    expect(job.status).toBe('completed');
    expect(job.data.map((d) => d.markdown).every((m) => m?.includes(WORD))).toBe(true);
    expect(job.data).toHaveLength(2);
    zdrWorkflows.push(`batch-${job.id}`);
    expect(await stores()).toEqual(EMPTY);
    expect(await leftOf(job.id)).toMatchObject({ zdr: true, documents: 2, withContent: 0 });
    // The figures stay; the content does not.
    const again = await zdr(`/v2/batch/scrape/${job.id}`);
    expect(again.body).toMatchObject({ status: 'completed', completed: 2, data: [] });
    // Pages appended to a ZDR batch run with its options: an append that asks otherwise is refused.
    const append = await zdr('/v2/batch/scrape', { body: { urls: [`${origin}/c`], appendToId: job.id } });
    expect(append).toMatchObject({ status: 400, body: { error: 'zeroDataRetention must be true to append to this batch' } });
  });

  it('crawl (official SDK): every page delivered, then forgotten; nothing stored', async () => {
    const job = await zdrSdk.crawl(`${origin}/`, { limit: 3, zeroDataRetention: true, pollInterval: 0.2 });
    expect(job.status).toBe('completed');
    expect(job.data).toHaveLength(3);
    zdrWorkflows.push(`crawl-${job.id}`);
    expect(await stores()).toEqual(EMPTY);
    expect(await leftOf(job.id)).toMatchObject({ zdr: true, url: null, documents: 3, withContent: 0 });
  });

  it('a finished job nobody collects is forgotten by the purge after the window', async () => {
    const started = await zdr('/v2/batch/scrape', { body: { urls: [`${origin}/c`], zeroDataRetention: true } });
    expect(started.status).toBe(200);
    const id: string = started.body.id;
    zdrWorkflows.push(`batch-${id}`);
    // Waits on the row, not the status route: reading the status would deliver it.
    await vi.waitFor(async () => expect((await db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('completed'), { timeout: 60_000, interval: 200 });
    expect(await leftOf(id)).toMatchObject({ withContent: 1 });
    await db.updateTable('jobs').set({ updated_at: new Date(Date.now() - 2 * 3_600_000) }).where('id', '=', id).execute();
    await new Client({ connection }).schedule.getHandle(purgeScheduleId(taskQueue)).trigger();
    await vi.waitFor(async () => expect(await leftOf(id)).toMatchObject({ withContent: 0 }), { timeout: 30_000, interval: 200 });
  });

  it('search scraping with enterprise zdr: results scraped and answered, query, results and pages forgotten, stores untouched', async () => {
    // The control: the same team's ordinary scrape fills the cache and the index (the provider
    // of the shared stack is that index, so the search below finds this page).
    const seeded = await zdr('/v2/scrape', { body: { url: `${origin}/seed` } });
    expect(seeded.status).toBe(200);
    ordinaryWorkflow = `scrape-${seeded.body.data.metadata.scrapeId}`;
    const before = await stores();
    expect(before).toMatchObject({ pageCache: 1, searchIndex: 1 });
    const stamps = async () => ({
      cachedAt: (await db.selectFrom('page_cache').select('cached_at').where('team_id', '=', zdrTeamId).executeTakeFirstOrThrow()).cached_at.getTime(),
      scrapedAt: (await db.selectFrom('search_documents').select('scraped_at').where('team_id', '=', zdrTeamId).executeTakeFirstOrThrow()).scraped_at.getTime(),
    });
    const stamped = await stamps();

    const res = await zdr('/v2/search', { body: { query: WORD, enterprise: ['zdr'], scrapeOptions: { formats: ['markdown'] } } });
    expect(res.status).toBe(200);
    expect(res.body.data.web).toHaveLength(1);
    expect(res.body.data.web[0].markdown).toContain('/seed');
    // A ZDR search costs 10 credits per ten results, and its scraped page 1 + 1.
    expect(res.body.creditsUsed).toBe(10 + 2);
    // An ordinary scrape of the result would have refreshed both (the crawl-page policy stores its copy).
    expect(await stores()).toEqual(before);
    expect(await stamps()).toEqual(stamped);
    expect(await leftOf(res.body.id)).toMatchObject({ zdr: true, query: undefined, result: null, documents: 1, withContent: 0 });
    zdrWorkflows.push(`search-${res.body.id}`);
  });

  it('their Temporal histories (which held the URL and options) are deleted once closed; an ordinary job keeps its own', async () => {
    expect(zdrWorkflows).toHaveLength(5);
    const client = new Client({ connection });
    const describe = (workflowId: string) =>
      client.workflow.getHandle(workflowId).describe().catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    const isZdr = (d: WorkflowExecutionDescription) => d.typedSearchAttributes.get(ZeroDataRetentionAttribute) === true;
    // Every one is gone or closed and marked, so the purge deletes it if the API has not.
    for (const id of zdrWorkflows) {
      const d = await describe(id);
      if (d) expect({ id, zdr: isZdr(d), status: d.status.name }).toEqual({ id, zdr: true, status: 'COMPLETED' });
    }
    const ordinary = await describe(ordinaryWorkflow);
    expect(ordinary && isZdr(ordinary)).toBe(false);
    // The purge asks Temporal to delete each closed one it lists.
    await client.schedule.getHandle(purgeScheduleId(taskQueue)).trigger();
    await vi.waitFor(async () => {
      const runs = [];
      for await (const run of client.workflow.list({ query: 'WorkflowType = "purgeExpiredWorkflow" AND ExecutionStatus = "Completed"' })) runs.push(run);
      const results = await Promise.all(runs.map((run) => client.workflow.getHandle(run.workflowId, run.runId).result()));
      expect(Math.max(...results.map((r: { zeroDataRetentionHistories?: number }) => r.zeroDataRetentionHistories ?? 0))).toBeGreaterThanOrEqual(1);
    }, { timeout: 30_000, interval: 500 });
    // Temporal deletes asynchronously (about 30 s for a scrape on the dev server, its queue
    // permitting): the first one, the scrape the API deleted when it answered, is gone.
    await vi.waitFor(async () => expect(await describe(zdrWorkflows[0]!)).toBeUndefined(), { timeout: 90_000, interval: 1_000 });
    expect(await describe(ordinaryWorkflow)).toBeDefined();
  }, 150_000);
});
