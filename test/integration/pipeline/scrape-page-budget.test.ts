/**
 * A synchronous scrape's page takes the team's plan and credits the API read for the request
 * (ScrapePageInput.budget) instead of reading them again: one statement fewer on the answer's path.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScrapePageActivity, type ScrapePageInput } from '../../../activities/scrape-page.js';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { DEFAULT_PLAN } from '../../../lib/plans.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let server: Server;
let url: string;
let teamId: string;
let browser: BrowserPool;

beforeAll(async () => {
  testDb = await createTestDb('trawl_scrape_budget');
  teamId = (await findOrCreateTeam(testDb.db, `scrape-budget-${randomUUID()}`)).id;
  server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Plain</title></head><body><main><h1>Plain</h1><p>${'word '.repeat(300)}</p></main></body></html>`),
  ).listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plain`;
  // A static page never launches it.
  browser = createBrowserPool();
});

afterAll(async () => {
  server?.close();
  await browser?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

/** Scrapes the page once and returns how many SQL statements the activity sent. */
async function statementsOf(extra: Partial<ScrapePageInput>): Promise<number> {
  let statements = 0;
  // A plugin sees the result of each statement sent.
  const db = testDb.db.withPlugin({
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      statements++;
      return result;
    },
  });
  const jobId = await insertRunningJob(testDb.db, { teamId, kind: 'scrape', url });
  const scrapePage = createScrapePageActivity({ db, browser, allowPrivateNetwork: true });
  const result = await new MockActivityEnvironment().run(scrapePage, {
    jobId,
    teamId,
    url,
    options: scrapeOptionsSchema.parse({ formats: ['markdown'], maxAge: 0 }),
    deadline: Date.now() + 30_000,
    documentId: jobId,
    ...extra,
  });
  expect(result).toMatchObject({ documentId: jobId, statusCode: 200, creditsUsed: 1 });
  return statements;
}

describe("a synchronous scrape's admission", () => {
  it("reads the team's plan and credits only when the API did not hand them over", async () => {
    const alone = await statementsOf({});
    const handed = await statementsOf({ budget: { plan: DEFAULT_PLAN, remainingCredits: 1_000 } });
    expect(handed).toBe(alone - 1);
  });
});
