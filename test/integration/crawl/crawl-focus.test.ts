/**
 * The query-directed crawl's frontier (db/repositories/crawl-focus.ts) on a real Postgres, and a
 * frontier slice working it against a local site: claims go best first, never below minScore or
 * past the limit, each page once under concurrent claims; each page's evidence counts once.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrawlSliceActivity, type CrawlSliceResult } from '../../../activities/crawl-slice.js';
import type { ActivityDeps } from '../../../activities/deps.js';
import { discover } from '../../../activities/site/discover.js';
import { finishFocus } from '../../../activities/site/focus-stop.js';
import { createRobotsLookup, type RobotsLookup } from '../../../activities/site/site-rules.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { claimBestFirst, createFocus, focusHasWork, readFocus } from '../../../db/repositories/crawl-focus.js';
import { enqueuePages, settlePage } from '../../../db/repositories/crawl-pages.js';
import { readJobProgress } from '../../../db/repositories/crawl-read.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { queryTerms } from '../../../lib/crawl/relevance.js';
import type { CrawlerSettings, FocusSettings } from '../../../lib/crawl/settings.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let teamId: string;
let deps: ActivityDeps;
let server: Server;
let base: string;
const allowAll: RobotsLookup = async () => ({ isAllowed: () => true, crawlDelaySecs: () => undefined, sitemaps: () => [], source: 'unavailable', reason: '' });

/** A small site: the home page links to a solar guide and to recipes; the guide to two more solar pages. */
const SITE: Record<string, string> = {
  '/': '<a href="/recipes">Bread recipes</a> <a href="/solar">Solar panel guide</a> <a href="/garden">Garden</a>',
  '/solar': '<h1>Solar panels</h1><p>Installing a solar panel.</p><a href="/solar/roof">Solar panels on a roof</a> <a href="/solar/cost">What solar panel installation costs</a>',
  '/solar/roof': '<h1>Roof solar panels</h1><p>A solar panel on a roof.</p>',
  '/solar/cost': '<h1>Solar panel installation cost</h1><p>A solar panel installation costs money.</p>',
  '/recipes': '<h1>Bread</h1><p>Flour and water.</p><a href="/recipes/rye">Rye bread</a>',
  '/garden': '<h1>Garden</h1><p>Tomatoes.</p>',
};

beforeAll(async () => {
  testDb = await createTestDb('trawl_focus');
  teamId = (await findOrCreateTeam(testDb.db, `focus-${randomUUID()}`)).id;
  deps = { db: testDb.db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork: true };
  server = createServer((req, res) => {
    const body = SITE[req.url ?? ''];
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><main>${body}</main></body></html>`);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

function focus(over: Partial<FocusSettings> = {}): FocusSettings {
  return { query: 'solar panel', terms: queryTerms('solar panel'), minScore: 0.1, evidence: 2, ...over };
}

function crawler(limit: number, settings = focus()): CrawlerSettings {
  return {
    startUrl: `${base}/`,
    includePaths: [],
    excludePaths: [],
    regexOnFullURL: false,
    limit,
    sitemap: 'skip',
    crawlEntireDomain: true,
    allowSubdomains: false,
    allowExternalLinks: false,
    ignoreRobotsTxt: true,
    ignoreQueryParameters: false,
    deduplicateSimilarURLs: false,
    focus: settings,
  };
}

async function focusedJob(limit: number, settings = focus()): Promise<string> {
  const jobId = await insertRunningJob(testDb.db, { teamId, kind: 'crawl', url: `${base}/` });
  await createFocus(testDb.db, jobId, { minScore: settings.minScore, limit, evidence: settings.evidence, terms: settings.terms.length });
  return jobId;
}

/** Frontier rows with the given scores, keyed /0, /1, … in that order. */
async function scoredRows(jobId: string, scores: number[]): Promise<void> {
  await enqueuePages(testDb.db, jobId, 10_000, scores.map((score, i) => ({ url: `${base}/${i}`, urlKey: `/${i}`, depth: 1, score })));
}

describe('claimBestFirst', () => {
  it('claims the highest scores first, never below minScore, and never past the limit', async () => {
    const jobId = await focusedJob(3);
    await scoredRows(jobId, [0.2, 0.05, 0.9, 0.5, 0.5, 0.3]);
    expect((await claimBestFirst(testDb.db, jobId, 'c1', 2)).map((p) => [p.urlKey, p.score])).toEqual([
      ['/2', 0.9],
      ['/3', 0.5],
    ]);
    // Equal scores: the older link first. Then the limit of 3 is reached.
    expect((await claimBestFirst(testDb.db, jobId, 'c2', 5)).map((p) => p.urlKey)).toEqual(['/4']);
    expect(await claimBestFirst(testDb.db, jobId, 'c3', 5)).toEqual([]);
    expect((await readFocus(testDb.db, jobId))!.claimed).toBe(3);
  });

  it('hands each page to one claim when many claim at once, and counts exactly the limit', async () => {
    const jobId = await focusedJob(150);
    await scoredRows(jobId, Array.from({ length: 300 }, (_, i) => ((i * 37) % 100) / 100 + 0.1));
    const lanes = await Promise.all(
      Array.from({ length: 8 }, async (_, lane) => {
        const mine: string[] = [];
        for (let claim = 0; ; claim++) {
          const pages = await claimBestFirst(testDb.db, jobId, `lane-${lane}`, 1 + (claim % 3));
          if (pages.length === 0) return mine;
          mine.push(...pages.map((p) => p.urlKey));
        }
      }),
    );
    const all = lanes.flat();
    expect(all).toHaveLength(150);
    expect(new Set(all).size).toBe(150);
    expect((await readFocus(testDb.db, jobId))!.claimed).toBe(150);
    // The 150 best: no row left queued scores above any row claimed.
    const rows = await testDb.db.selectFrom('crawl_pages').select(['status', 'score']).where('job_id', '=', jobId).execute();
    const lowestClaimed = Math.min(...rows.filter((r) => r.status === 'scraping').map((r) => r.score!));
    const highestLeft = Math.max(...rows.filter((r) => r.status === 'queued').map((r) => r.score!));
    expect(highestLeft).toBeLessThanOrEqual(lowestClaimed);
  });

  it('has work while a page is in flight or one above minScore is queued, and none once stopped', async () => {
    const jobId = await focusedJob(10);
    await scoredRows(jobId, [0.05]);
    expect(await focusHasWork(testDb.db, jobId)).toBe(false);
    await scoredRows(jobId, [0.05, 0.4]);
    expect(await focusHasWork(testDb.db, jobId)).toBe(true);
    const [page] = await claimBestFirst(testDb.db, jobId, 'c', 1);
    expect(page!.urlKey).toBe('/1');
    expect(await focusHasWork(testDb.db, jobId)).toBe(true);
    await settlePage(testDb.db, { jobId, urlKey: '/1', status: 'failed', error: 'x' }, failedDocument(jobId, '/1'));
    expect(await focusHasWork(testDb.db, jobId)).toBe(false);
    await finishFocus(testDb.db, jobId, focus(), 10);
    expect((await readFocus(testDb.db, jobId))!.stopReason).toBe('no_relevant_pages');
  });

  it('reads its pick from the partial index, in order, not by sorting the frontier', async () => {
    const jobId = await focusedJob(100_000);
    await scoredRows(jobId, Array.from({ length: 5_000 }, (_, i) => (i % 997) / 997));
    await sql`analyze crawl_pages`.execute(testDb.db);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain
      select url_key from crawl_pages
      where job_id = ${jobId}::uuid and status = 'queued' and score is not null and score >= ${0.1}::real
      order by score desc, seq limit 1 for update skip locked`.execute(testDb.db);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('crawl_pages_best_idx');
    expect(plan).not.toMatch(/Sort|Seq Scan/);
  });

  it('reports a total of at most the limit while links it will not follow are queued', async () => {
    const jobId = await focusedJob(4);
    await scoredRows(jobId, [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    expect((await readJobProgress(testDb.db, jobId)).total).toBe(4);
  });
});

function failedDocument(jobId: string, urlKey: string) {
  return { id: randomUUID(), job_id: jobId, team_id: teamId, url: `${base}${urlKey}`, url_key: urlKey, status: 'failed' as const, document: null, size_bytes: 0, error_code: 'X', error: 'x', credits_used: 0 };
}

describe('settling a page of a query-directed crawl', () => {
  it('adds its evidence once, however often it is settled', async () => {
    const jobId = await focusedJob(10);
    await scoredRows(jobId, [0.5]);
    await claimBestFirst(testDb.db, jobId, 'c', 1);
    const document = { id: randomUUID(), job_id: jobId, team_id: teamId, url: `${base}/0`, url_key: '/0', status: 'completed' as const, document: JSON.stringify({ metadata: {} }), size_bytes: 10, error_code: null, error: null, credits_used: 1 };
    for (let attempt = 0; attempt < 3; attempt++) {
      await settlePage(testDb.db, { jobId, urlKey: '/0', status: 'completed' }, { ...document, id: randomUUID() }, { focus: { relevant: true, hits: [true, false] } });
    }
    expect(await readFocus(testDb.db, jobId)).toMatchObject({ scored: 1, relevant: 1, streak: 0, pagesPerTerm: [1, 0] });
  });
});

describe('a frontier slice in a query-directed crawl', () => {
  const run = async (jobId: string, limit: number, settings = focus()): Promise<CrawlSliceResult> =>
    new MockActivityEnvironment().run(createCrawlSliceActivity(deps, createRobotsLookup(deps)), {
      jobId,
      teamId,
      crawler: crawler(limit, settings),
      scrapeOptions: scrapeOptionsSchema.parse({ formats: ['markdown'] }),
      sliceId: `slice-${jobId}`,
      maxPages: 100,
      sliceMs: 30_000,
      withDocumentIds: false,
    });

  async function documents(jobId: string) {
    const rows = await testDb.db.selectFrom('documents').select(['url', 'document', 'created_at']).where('job_id', '=', jobId).orderBy('created_at').execute();
    return rows.map((r) => ({ path: new URL(r.url).pathname, crawl: (r.document as { metadata: { crawl: Record<string, unknown> } }).metadata.crawl }));
  }

  it('follows the relevant links best first, skips the rest, and traces each page', async () => {
    const jobId = await focusedJob(10);
    await discover(deps, allowAll, jobId, crawler(10), [`${base}/`], 0, { score: 1 });
    const result = await run(jobId, 10);
    expect(result).toMatchObject({ ended: 'drained', completed: 4 });
    const pages = await documents(jobId);
    expect(pages.map((p) => p.path)).toEqual(['/', '/solar', '/solar/roof', '/solar/cost']);
    // The shorter link text scores higher, its terms being as many: BM25's length normalisation.
    const linkScore = (i: number) => (pages[i]!.crawl as { linkScore: number }).linkScore;
    expect(linkScore(2)).toBeGreaterThan(linkScore(3));
    expect(pages[0]!.crawl).toMatchObject({ depth: 0, parentUrl: null, linkScore: 1 });
    const solar = pages[1]!.crawl as { depth: number; parentUrl: string; score: number; linkScore: number };
    expect(solar).toMatchObject({ depth: 1, parentUrl: `${base}/` });
    expect(solar.score).toBeGreaterThan(0.1);
    expect(solar.linkScore).toBeGreaterThan(0.1);
    // The recipes and the garden were found, scored 0, and never fetched.
    const skipped = await testDb.db.selectFrom('crawl_pages').select(['url', 'score']).where('job_id', '=', jobId).where('status', '=', 'queued').execute();
    expect(skipped.map((r) => [new URL(r.url).pathname, r.score])).toEqual(expect.arrayContaining([['/recipes', 0], ['/garden', 0]]));
    expect(await readFocus(testDb.db, jobId)).toMatchObject({ claimed: 4, scored: 4, relevant: 4, pagesPerTerm: [4, 4] });
    // The page cache keeps the pages' outcomes without the text they were scored on.
    const cached = await testDb.db.selectFrom('page_cache').select('outcome').where('team_id', '=', teamId).where('url', '=', `${base}/solar`).execute();
    expect(cached).toHaveLength(1);
    expect(cached[0]!.outcome).toHaveProperty('links');
    expect(cached[0]!.outcome).not.toHaveProperty('relevance');
  });

  it('stops claiming once the relevant pages cover the query', async () => {
    const settings = focus({ coverage: 1, evidence: 2 });
    const jobId = await focusedJob(10, settings);
    await discover(deps, allowAll, jobId, crawler(10, settings), [`${base}/`], 0, { score: 1 });
    const result = await run(jobId, 10, settings);
    // The home page (its link text) and the solar guide each hold both terms: covered after two pages.
    expect(result).toMatchObject({ ended: 'drained', completed: 2 });
    expect((await readFocus(testDb.db, jobId))!.stopReason).toBe('coverage_reached');
  });
});
