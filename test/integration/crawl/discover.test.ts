/**
 * Link discovery into a crawl's frontier (activities/site/discover.ts) on a real Postgres: a page
 * whose links are all in the frontier already costs no transaction.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ActivityDeps } from '../../../activities/deps.js';
import { discover } from '../../../activities/site/discover.js';
import type { RobotsLookup } from '../../../activities/site/site-rules.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import type { CrawlerSettings } from '../../../lib/crawl/settings.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let teamId: string;
let deps: ActivityDeps;
// ignoreRobotsTxt is set below, so this is never asked; it only completes the signature.
const allowAll: RobotsLookup = async () => ({ isAllowed: () => true, crawlDelaySecs: () => undefined, sitemaps: () => [], source: 'unavailable', reason: '' });

beforeAll(async () => {
  testDb = await createTestDb('trawl_discover');
  teamId = (await findOrCreateTeam(testDb.db, `discover-${randomUUID()}`)).id;
  deps = { db: testDb.db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork: true };
});

afterAll(async () => {
  await testDb?.drop();
});

function crawler(limit: number): CrawlerSettings {
  return {
    startUrl: 'https://site.example/',
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
  };
}

const newJob = () => insertRunningJob(testDb.db, { teamId, kind: 'crawl', url: 'https://site.example/' });

async function frontier(jobId: string): Promise<string[]> {
  const rows = await testDb.db.selectFrom('crawl_pages').select('url').where('job_id', '=', jobId).orderBy('seq').execute();
  return rows.map((r) => r.url);
}

const links = (...paths: string[]) => paths.map((p) => `https://site.example/${p}`);

describe('discover', () => {
  it('sends only links the frontier is not known to hold, and skips the transaction when there are none', async () => {
    const jobId = await newJob();
    const transactions = vi.spyOn(testDb.db, 'transaction');
    try {
      expect(await discover(deps, allowAll, jobId, crawler(100), links('a', 'b', 'c'), 1)).toBe(3);
      expect(transactions).toHaveBeenCalledTimes(1);
      // Every link known: no transaction at all.
      expect(await discover(deps, allowAll, jobId, crawler(100), links('c', 'a', 'b#top'), 1)).toBe(0);
      expect(transactions).toHaveBeenCalledTimes(1);
      // One new link among known ones.
      expect(await discover(deps, allowAll, jobId, crawler(100), links('b', 'd', 'a'), 1)).toBe(1);
      expect(transactions).toHaveBeenCalledTimes(2);
      expect(await frontier(jobId)).toEqual(links('a', 'b', 'c', 'd'));
    } finally {
      transactions.mockRestore();
    }
  });

  it('knows each job apart, and stops once the frontier is full', async () => {
    const [first, second] = [await newJob(), await newJob()];
    expect(await discover(deps, allowAll, first, crawler(2), links('a', 'b', 'c'), 1)).toBe(2);
    // The same links are new to another job.
    expect(await discover(deps, allowAll, second, crawler(100), links('a', 'b', 'c'), 1)).toBe(3);
    const transactions = vi.spyOn(testDb.db, 'transaction');
    try {
      expect(await discover(deps, allowAll, first, crawler(2), links('x', 'y'), 1)).toBe(0);
      expect(transactions).not.toHaveBeenCalled();
    } finally {
      transactions.mockRestore();
    }
    expect(await frontier(first)).toEqual(links('a', 'b'));
  });
});
