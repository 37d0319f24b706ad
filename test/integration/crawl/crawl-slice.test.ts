/**
 * The frontier slice (activities/crawl-slice.ts) on a real Postgres frontier and a local site:
 * what it claims, what it settles, what it hands back, and how a retry after a dead attempt and
 * an idle lane behave.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlPolicy, crawlTask, type CrawlPageInput } from '../../../activities/crawl-page.js';
import { createCrawlSliceActivity, type CrawlSliceInput, type CrawlSliceResult } from '../../../activities/crawl-slice.js';
import type { PageToPersist } from '../../../activities/page/pipeline.js';
import type { ActivityDeps } from '../../../activities/deps.js';
import { createRobotsLookup } from '../../../activities/site/site-rules.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { countActiveSlots } from '../../../db/repositories/concurrency-slots.js';
import { settlePage } from '../../../db/repositories/crawl-pages.js';
import { CreditLimitReached } from '../../../db/repositories/ledger.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { DEFAULT_PLAN } from '../../../lib/plans.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let server: Server;
let base: string;
let teamId: string;
let deps: ActivityDeps;

beforeAll(async () => {
  testDb = await createTestDb('trawl_slice');
  teamId = (await findOrCreateTeam(testDb.db, `slice-${randomUUID()}`)).id;
  server = createServer((req, res) => {
    if (req.url?.startsWith('/broken')) return res.writeHead(503).end('down');
    const page = () => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${req.url}</title></head><body><main><p>${'text '.repeat(100)}</p></main></body></html>`);
    if (req.url?.startsWith('/slow')) setTimeout(page, 250);
    else page();
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Static pages never need the browser.
  deps = { db: testDb.db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork: true };
});

afterAll(async () => {
  server?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

/** A batch scrape job whose frontier holds `paths`, queued in that order. */
async function jobWith(paths: string[]): Promise<string> {
  const jobId = await insertRunningJob(testDb.db, { teamId, kind: 'batch_scrape', url: base });
  if (paths.length > 0) await queue(jobId, paths);
  return jobId;
}

async function queue(jobId: string, paths: string[]): Promise<void> {
  await testDb.db
    .insertInto('crawl_pages')
    .values(paths.map((path) => ({ job_id: jobId, url_key: path, url: `${base}${path}`, depth: 0 })))
    .execute();
}

async function statuses(jobId: string): Promise<Record<string, string>> {
  const rows = await testDb.db.selectFrom('crawl_pages').select(['url_key', 'status']).where('job_id', '=', jobId).execute();
  return Object.fromEntries(rows.map((r) => [r.url_key, r.status]));
}

function sliceInput(jobId: string, overrides: Partial<CrawlSliceInput> = {}): CrawlSliceInput {
  return {
    jobId,
    teamId,
    scrapeOptions: scrapeOptionsSchema.parse({ formats: ['markdown'] }),
    sliceId: `slice-${jobId}/s0`,
    maxPages: 100,
    sliceMs: 30_000,
    withDocumentIds: true,
    ...overrides,
  };
}

const crawlSlice = () => createCrawlSliceActivity(deps, createRobotsLookup(deps));

describe('crawlSlice', () => {
  it('claims and settles pages one after another until nothing is open, and reports them from the rows', async () => {
    const jobId = await jobWith(['/a', '/b', '/c', '/d']);
    const result: CrawlSliceResult = await new MockActivityEnvironment().run(crawlSlice(), sliceInput(jobId));
    expect(result).toMatchObject({ ended: 'drained', claimed: 4, completed: 4, failed: 0, creditsUsed: 4 });
    expect(result.handBack).toBeUndefined();
    expect(result.documentIds).toHaveLength(4);
    expect(await statuses(jobId)).toEqual({ '/a': 'completed', '/b': 'completed', '/c': 'completed', '/d': 'completed' });
    const docs = await testDb.db.selectFrom('documents').select('id').where('job_id', '=', jobId).execute();
    expect(new Set(docs.map((d) => d.id))).toEqual(new Set(result.documentIds));
  });

  it('stops at its page budget, leaving the rest queued', async () => {
    const jobId = await jobWith(['/a', '/b', '/c', '/d', '/e']);
    const result: CrawlSliceResult = await new MockActivityEnvironment().run(crawlSlice(), sliceInput(jobId, { maxPages: 2, withDocumentIds: false }));
    expect(result).toMatchObject({ ended: 'budget', claimed: 2, completed: 2, documentIds: [] });
    expect(await statuses(jobId)).toEqual({ '/a': 'completed', '/b': 'completed', '/c': 'queued', '/d': 'queued', '/e': 'queued' });
  });

  it('hands back a page whose failure another attempt may fix, still claimed', async () => {
    const jobId = await jobWith(['/a', '/broken', '/c']);
    const result: CrawlSliceResult = await new MockActivityEnvironment().run(crawlSlice(), sliceInput(jobId));
    expect(result).toMatchObject({ ended: 'handed-back', claimed: 2, completed: 1, failed: 0 });
    expect(result.handBack).toMatchObject({ urlKey: '/broken', url: `${base}/broken` });
    expect(await statuses(jobId)).toEqual({ '/a': 'completed', '/broken': 'scraping', '/c': 'queued' });
  });

  it('on a retry, hands back the page the dead attempt had in flight, and counts what that attempt settled', async () => {
    const jobId = await jobWith(['/a', '/b', '/c']);
    const input = sliceInput(jobId);
    // The first attempt settled /a and died with /b in flight.
    const first: CrawlSliceResult = await new MockActivityEnvironment().run(crawlSlice(), { ...input, maxPages: 1 });
    expect(first.completed).toBe(1);
    await testDb.db
      .updateTable('crawl_pages')
      .set({ status: 'scraping', claim_id: input.sliceId })
      .where('job_id', '=', jobId)
      .where('url_key', '=', '/b')
      .execute();
    const retry: CrawlSliceResult = await new MockActivityEnvironment({ attempt: 2 }).run(crawlSlice(), input);
    expect(retry).toMatchObject({ ended: 'handed-back', claimed: 2, completed: 1, handBack: { urlKey: '/b' } });
    expect(retry.documentIds).toHaveLength(1);
    // Not run by the retry: a page that killed its worker would kill every retry.
    expect(await statuses(jobId)).toEqual({ '/a': 'completed', '/b': 'scraping', '/c': 'queued' });
  });

  it("holds one of the team's slots through its run of pages, and frees it when it ends", async () => {
    const jobId = await jobWith(['/slow-1', '/slow-2', '/slow-3']);
    const leases = new Set<string>();
    let most = 0;
    const running = new MockActivityEnvironment().run(crawlSlice(), sliceInput(jobId));
    let done = false;
    void running.finally(() => (done = true));
    while (!done) {
      const rows = await testDb.db.selectFrom('concurrency_slots').select('lease_id').where('team_id', '=', teamId).execute();
      for (const row of rows) leases.add(row.lease_id);
      most = Math.max(most, rows.length);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await running).toMatchObject({ ended: 'drained', completed: 3 });
    // One lease for the three pages, not one taken and freed per page.
    expect(leases.size).toBe(1);
    expect(most).toBe(1);
    expect(await countActiveSlots(testDb.db, teamId)).toBe(0);
  });

  it('waits, idle, while another lane has a page in flight, then takes the pages that page adds', async () => {
    const jobId = await jobWith(['/elsewhere']);
    await testDb.db.updateTable('crawl_pages').set({ status: 'scraping', claim_id: 'other-lane' }).where('job_id', '=', jobId).execute();
    const running = new MockActivityEnvironment().run(crawlSlice(), sliceInput(jobId));
    await new Promise((r) => setTimeout(r, 300));
    // An idle lane holds none of the team's slots: another job of the team may need them.
    expect(await countActiveSlots(testDb.db, teamId)).toBe(0);
    // The other lane's page adds a link, then settles.
    await queue(jobId, ['/found']);
    await settlePage(
      testDb.db,
      { jobId, urlKey: '/elsewhere', status: 'completed' },
      { id: randomUUID(), job_id: jobId, team_id: teamId, url: `${base}/elsewhere`, url_key: '/elsewhere', status: 'completed', document: null, size_bytes: 0, error_code: null, error: null, credits_used: 1 },
    );
    const result = await running;
    expect(result).toMatchObject({ ended: 'drained', claimed: 1, completed: 1 });
    expect(await statuses(jobId)).toEqual({ '/elsewhere': 'completed', '/found': 'completed' });
  });

  it('ends with its time slice, after the page it is on', async () => {
    const jobId = await jobWith(['/elsewhere']);
    await testDb.db.updateTable('crawl_pages').set({ status: 'scraping', claim_id: 'other-lane' }).where('job_id', '=', jobId).execute();
    const result = await new MockActivityEnvironment().run(crawlSlice(), sliceInput(jobId, { sliceMs: 200 }));
    expect(result).toMatchObject({ ended: 'time', claimed: 0 });
  });
});

describe('the crawl policy', () => {
  // The cache copy is stored by the page's settle statement: a page whose charge is refused is
  // rolled back with its copy, and a settled page leaves one.
  it('stores the cache copy of a settled page, and none for a page whose charge is refused', async () => {
    const persisted = async (path: string, monthlyCredits: number) => {
      const jobId = await jobWith([path]);
      const input: CrawlPageInput = { jobId, teamId, page: { url: `${base}${path}`, urlKey: path, depth: 0 }, scrapeOptions: scrapeOptionsSchema.parse({}) };
      const key = `cache-${randomUUID()}`;
      const page: PageToPersist = {
        task: crawlTask(input),
        documentId: randomUUID(),
        outcome: { document: { markdown: 'text', metadata: { sourceURL: input.page.url, url: input.page.url, statusCode: 200 } }, statusCode: 200, engine: 'http', links: [] },
        creditsUsed: 1,
        plan: { ...DEFAULT_PLAN, monthlyCredits },
        slot: { teamId, slot: 0, leaseId: randomUUID(), released: false },
        cacheCopy: { teamId, key, url: input.page.url, document: '{"markdown":"text"}', outcome: '{"statusCode":200}', cachedAt: new Date() },
      };
      const outcome = await crawlPolicy(input, createRobotsLookup(deps)).persist(page, deps).then(
        () => 'settled',
        (err: unknown) => (err instanceof CreditLimitReached ? 'refused' : String(err)),
      );
      const copies = await testDb.db.selectFrom('page_cache').select('cache_key').where('cache_key', '=', key).execute();
      return { outcome, copies: copies.length };
    };
    expect(await persisted('/paid', DEFAULT_PLAN.monthlyCredits)).toEqual({ outcome: 'settled', copies: 1 });
    expect(await persisted('/refused', 0)).toEqual({ outcome: 'refused', copies: 0 });
  });
});

