/**
 * README "Extending Trawl": one enrich step, listed once, runs after fetch and before store for
 * single scrapes and for crawl and batch pages, and its credits are charged with the page's.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrawlPageActivity, type CrawlPageResult } from '../../../activities/crawl-page.js';
import type { ActivityDeps } from '../../../activities/deps.js';
import { ENRICH_STEPS } from '../../../activities/page/enrich/steps.js';
import { createScrapePageActivity, type ScrapePageResult } from '../../../activities/scrape-page.js';
import { createRobotsLookup } from '../../../activities/site/site-rules.js';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { findDocument } from '../../../db/repositories/documents.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';
import { readingTimeStep } from './reading-time-step.js';

const ARTICLE = `<html><head><title>Essay</title></head><body><main><h1>Essay</h1><p>${'word '.repeat(700)}</p></main></body></html>`;

let testDb: TestDb;
let server: Server;
let pageUrl: string;
let teamId: string;
let deps: ActivityDeps;
let browser: BrowserPool;
const steps = [...ENRICH_STEPS, readingTimeStep];

beforeAll(async () => {
  testDb = await createTestDb('trawl_extending');
  teamId = (await findOrCreateTeam(testDb.db, `extending-${randomUUID()}`)).id;
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/essay`;
  // A static page never launches it.
  browser = createBrowserPool();
  deps = { db: testDb.db, browser, allowPrivateNetwork: true };
});

afterAll(async () => {
  server?.close();
  await browser?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

const insertJob = (kind: 'scrape' | 'batch_scrape') => insertRunningJob(testDb.db, { teamId, kind, url: pageUrl });

async function storedDocument(id: string) {
  const row = await findDocument(testDb.db, id);
  // jsonb comes back parsed.
  return { row, document: row?.document as { markdown: string; metadata: Record<string, unknown> } };
}

describe('an enrich step added to the pipeline', () => {
  it('runs in the scrape policy and is charged with the page', async () => {
    const jobId = await insertJob('scrape');
    const scrapePage = createScrapePageActivity(deps, steps);
    const options = scrapeOptionsSchema.parse({ formats: ['markdown'], maxAge: 0 });
    const result: ScrapePageResult = await new MockActivityEnvironment().run(scrapePage, {
      jobId,
      teamId,
      url: pageUrl,
      options,
      deadline: Date.now() + 30_000,
      documentId: jobId,
    });
    expect(result.creditsUsed).toBe(2);
    const { row, document } = await storedDocument(result.documentId);
    expect(document.metadata.readingTimeMinutes).toBe(3);
    expect(document.metadata.creditsUsed).toBe(2);
    expect(row?.credits_used).toBe(2);
  });

  it('runs in the crawl policy (crawl and batch pages) too', async () => {
    const jobId = await insertJob('batch_scrape');
    const crawlPage = createCrawlPageActivity(deps, createRobotsLookup(deps), steps);
    const result: CrawlPageResult = await new MockActivityEnvironment().run(crawlPage, {
      jobId,
      teamId,
      page: { url: pageUrl, urlKey: 'essay', depth: 0 },
      scrapeOptions: scrapeOptionsSchema.parse({ formats: ['markdown'] }),
    });
    if (result.deferred) throw new Error('no concurrency slot in an idle test database');
    expect(result.creditsUsed).toBe(2);
    const { document } = await storedDocument(result.documentId);
    expect(document.metadata.readingTimeMinutes).toBe(3);
  });

  it('is skipped for pages that did not ask for what it needs', async () => {
    const jobId = await insertJob('scrape');
    const scrapePage = createScrapePageActivity(deps, steps);
    const options = scrapeOptionsSchema.parse({ formats: ['links'], maxAge: 0 });
    const result: ScrapePageResult = await new MockActivityEnvironment().run(scrapePage, {
      jobId,
      teamId,
      url: pageUrl,
      options,
      deadline: Date.now() + 30_000,
      documentId: jobId,
    });
    expect(result.creditsUsed).toBe(1);
    const { document } = await storedDocument(result.documentId);
    expect(document.metadata.readingTimeMinutes).toBeUndefined();
  });
});
