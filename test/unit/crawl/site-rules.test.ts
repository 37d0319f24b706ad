/**
 * robots.txt of an origin the address policy refuses: not "unreachable, disallow all" (which
 * files every page under robotsBlocked), but no say at all, so the pages fail with their real
 * reason, SSRF_BLOCKED, when fetched.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRobotsLookup } from '../../../activities/site/site-rules.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let site: Server;
let origin: string;
let jobId: string;
let otherJobId: string;

beforeAll(async () => {
  testDb = await createTestDb('trawl_site_rules');
  const team = await findOrCreateTeam(testDb.db, `robots-${randomUUID()}`);
  [jobId, otherJobId] = [randomUUID(), randomUUID()];
  for (const id of [jobId, otherJobId]) {
    await testDb.db
      .insertInto('jobs')
      .values({ id, team_id: team.id, kind: 'crawl', status: 'scraping', url: 'http://x/', options: '{}', workflow_id: `crawl-${id}`, updated_at: new Date(), expires_at: new Date(Date.now() + 3_600_000) })
      .execute();
  }
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n')).listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  site?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

const lookup = (allowPrivateNetwork: boolean) =>
  createRobotsLookup({ db: testDb.db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork });

describe('robots.txt lookup', () => {
  it('reads the rules of an origin it may reach', async () => {
    const robots = await lookup(true)(otherJobId, `${origin}/`);
    expect(robots.isAllowed(`${origin}/private/page`)).toBe(false);
    expect(robots.isAllowed(`${origin}/public`)).toBe(true);
  });

  it('leaves an origin the address policy refuses to that policy, not to a disallow-all', async () => {
    const robots = await lookup(false)(jobId, `${origin}/`);
    expect(robots.isAllowed(`${origin}/any/page`)).toBe(true);
    // Nothing was recorded as the origin's robots.txt: a later, permitted reader fetches it.
    expect(await testDb.db.selectFrom('crawl_robots').selectAll().where('job_id', '=', jobId).execute()).toEqual([]);
  });
});
