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
import { createRobotsLookup, plainFetcher } from '../../../activities/site/site-rules.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createProxyRoutes } from '../../../scraper/net/proxy-routes.js';
import { startCountingProxy, type CountingProxy } from '../../helpers/counting-proxy.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let site: Server;
let origin: string;
let jobId: string;
let otherJobId: string;
let proxyJobId: string;
let basic: CountingProxy;
let enhanced: CountingProxy;
let germany: CountingProxy;

beforeAll(async () => {
  testDb = await createTestDb('trawl_site_rules');
  const team = await findOrCreateTeam(testDb.db, `robots-${randomUUID()}`);
  [jobId, otherJobId, proxyJobId] = [randomUUID(), randomUUID(), randomUUID()];
  [basic, enhanced, germany] = await Promise.all([startCountingProxy(), startCountingProxy(), startCountingProxy()]);
  for (const id of [jobId, otherJobId, proxyJobId]) {
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
  await Promise.all([basic, enhanced, germany].map((p) => p?.close()));
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

describe('robots.txt and sitemap fetches', () => {
  const deps = () => ({
    db: testDb.db,
    browser: undefined as unknown as BrowserPool,
    allowPrivateNetwork: true,
    proxies: createProxyRoutes({
      global: { basic: [basic.url], enhanced: [enhanced.url] },
      countries: { DE: { basic: [germany.url], enhanced: [] } },
    }),
  });

  it("leave through the job's proxy pool, as its pages do", async () => {
    await createRobotsLookup(deps())(proxyJobId, `${origin}/`, { proxy: 'enhanced' });
    expect(enhanced.requests).toContain(`${origin}/robots.txt`);
    expect(basic.total()).toBe(0);
  });

  it("and through the pool of the job's country", async () => {
    const { fetchBytes } = plainFetcher({ allowPrivateNetwork: true, skipTlsVerification: true }, deps().proxies, { proxy: 'basic', country: 'DE' });
    await fetchBytes(`${origin}/sitemap.xml`);
    expect(germany.requests).toContain(`${origin}/sitemap.xml`);
    expect(basic.total()).toBe(0);
  });
});
