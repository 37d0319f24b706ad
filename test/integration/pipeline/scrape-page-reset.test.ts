/**
 * When a single scrape's browser page is reset (activities/scrape-page.ts): after its Document is
 * stored, so the reset's CPU does not compete with converting and storing it; but at once when an
 * enrich step follows, which may wait seconds on a model with the page's slot otherwise taken.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrichStep } from '../../../activities/page/enrich/steps.js';
import { createScrapePageActivity } from '../../../activities/scrape-page.js';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { waitForLockWait } from '../../helpers/lock-wait.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';

/** Rendered by its script, so the engine choice sends it to the browser. */
const SCRIPTED = `<html><head><title>Essay</title></head><body><div id="root"></div><script>document.getElementById('root').innerHTML = '<main><h1>Essay</h1><p>${'word '.repeat(700)}</p></main>';</script></body></html>`;
/** Long enough for a reset started at the page's release to have ended. */
const RESET_MS = 1_000;

let testDb: TestDb;
let server: Server;
let url: string;
let teamId: string;
let browser: BrowserPool;

beforeAll(async () => {
  testDb = await createTestDb('trawl_scrape_reset');
  teamId = (await findOrCreateTeam(testDb.db, `scrape-reset-${randomUUID()}`)).id;
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(SCRIPTED)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scripted`;
  browser = createBrowserPool();
});

afterAll(async () => {
  server?.close();
  await browser?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

function scrape(steps: readonly EnrichStep[], jobId: string): Promise<unknown> {
  const scrapePage = createScrapePageActivity({ db: testDb.db, browser, allowPrivateNetwork: true }, steps);
  return new MockActivityEnvironment().run(scrapePage, {
    jobId,
    teamId,
    url,
    options: scrapeOptionsSchema.parse({ formats: ['markdown'], maxAge: 0 }),
    deadline: Date.now() + 30_000,
    documentId: jobId,
  });
}

describe("a scrape's browser page", () => {
  it('is reset, and its slot freed, only once the Document is stored', async () => {
    const jobId = await insertRunningJob(testDb.db, { teamId, kind: 'scrape', url });
    const served = browser.stats().pagesServed;
    let scraping: Promise<unknown> | undefined;
    const slotsWhileStoring = await testDb.db.transaction().execute(async (trx) => {
      // The store's update of the job waits for this lock, with the page already rendered; the
      // key-share locks taken before it (the team slot's) do not.
      await trx.selectFrom('jobs').select('id').where('id', '=', jobId).forNoKeyUpdate().execute();
      scraping = scrape([], jobId);
      scraping.catch(() => undefined);
      await waitForLockWait(testDb.db);
      await sleep(RESET_MS);
      return browser.stats().slotsInUse;
    });
    await scraping;
    expect(browser.stats().pagesServed).toBe(served + 1);
    expect(slotsWhileStoring).toBe(1);
    const until = Date.now() + 5_000;
    while (browser.stats().slotsInUse > 0 && Date.now() < until) await sleep(20);
    expect(browser.stats().slotsInUse).toBe(0);
  });

  it('is reset at once when an enrich step follows, since a step may wait seconds on a model', async () => {
    let slotsInUse = -1;
    const waitsForSlot: EnrichStep = {
      name: 'waitsForSlot',
      appliesTo: () => true,
      async run() {
        // The page's reset holds its slot for a moment after the page is released.
        const until = Date.now() + 5_000;
        while (browser.stats().slotsInUse > 0 && Date.now() < until) await sleep(20);
        slotsInUse = browser.stats().slotsInUse;
      },
    };
    const served = browser.stats().pagesServed;
    await scrape([waitsForSlot], await insertRunningJob(testDb.db, { teamId, kind: 'scrape', url }));
    expect(browser.stats().pagesServed).toBe(served + 1);
    expect(slotsInUse).toBe(0);
  });
});
