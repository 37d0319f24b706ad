/**
 * The map activity against the fixture sites: sources, filters, ranking, limit, warnings and the
 * deadline, with a real database for the job row and robots.txt store.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMapSiteActivity, type MapJobResult, type MapSiteResult } from '../../../activities/map.js';
import { createRobotsLookup } from '../../../activities/site/site-rules.js';
import { MAP_DEFAULT_TIMEOUT_MS } from '../../../contracts/map-options.js';
import { mapRequestSchema } from '../../../api/schemas/map.js';
import { absoluteHttpUrl } from '../../../api/schemas/url.js';
import { findTeamJob, insertJob } from '../../../db/repositories/jobs.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { BIG_SITE_PAGES, HOME_DESCRIPTION, HOME_TITLE, startMapSite, type MapFixtureSite } from '../../helpers/map-site.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

const quietLogger = new DefaultLogger('ERROR');

let testDb: TestDb;
let teamId: string;
let site: MapFixtureSite;
let home: string;
let mapSite: ReturnType<typeof createMapSiteActivity>;

beforeAll(async () => {
  testDb = await createTestDb('trawl_map');
  teamId = (await findOrCreateTeam(testDb.db, 'map')).id;
  site = await startMapSite();
  home = site.origin('site');
  // The map never renders a page, so it gets no browser.
  const deps = { db: testDb.db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork: true };
  mapSite = createMapSiteActivity(deps, createRobotsLookup(deps));
});

afterAll(async () => {
  await site?.close();
  await closeGuardedDispatchers();
  await testDb?.drop();
});

/** Runs the activity as the API would start it and returns what it stored in the job row. */
async function map(body: Record<string, unknown>): Promise<MapJobResult & { count: number }> {
  const { url, origin: _origin, integration: _integration, ...options } = mapRequestSchema.parse(body);
  const jobId = randomUUID();
  await insertJob(testDb.db, {
    id: jobId,
    team_id: teamId,
    kind: 'map',
    status: 'scraping',
    url,
    options: JSON.stringify(options),
    workflow_id: `map-${jobId}`,
    updated_at: new Date(),
    expires_at: new Date(Date.now() + 86_400_000),
  });
  const env = new MockActivityEnvironment(undefined, { logger: quietLogger });
  const deadline = Date.now() + (options.timeout ?? MAP_DEFAULT_TIMEOUT_MS);
  const { count }: MapSiteResult = await env.run(mapSite, { jobId, teamId, url: absoluteHttpUrl(url)!, options, deadline });
  const job = await findTeamJob(testDb.db, teamId, jobId);
  return { count, ...(job!.result as unknown as MapJobResult) };
}

function urls(result: MapJobResult): string[] {
  return result.links.map((link) => link.url);
}

describe('mapSite', () => {
  it('lists the start page with its title, sitemap URLs (nested indexes too) and links on the page', async () => {
    const result = await map({ url: home });
    const listed = urls(result);
    expect(result.count).toBe(listed.length);
    expect(result.links[0]).toEqual({ url: `${home}/`, title: HOME_TITLE, description: HOME_DESCRIPTION });
    expect(listed).toEqual(
      expect.arrayContaining([
        `${home}/pricing`,
        `${home}/sitemap-only-page`,
        `${home}/blog/hello-world`,
        `${home}/blog/second-post`,
        `${home}/link-only-page`,
        `${home}/products`,
        `${site.origin('docs.site')}/guide`,
        `${site.origin('docs.site')}/reference`,
      ]),
    );
    expect(result.warning).toBeUndefined();
  });

  it('leaves out other sites, robots-disallowed pages, assets, fragments, queries and duplicates', async () => {
    const listed = urls(await map({ url: home }));
    expect(listed.filter((url) => url.includes('other.localhost'))).toEqual([]);
    expect(listed.filter((url) => url.includes('/private'))).toEqual([]);
    expect(listed.filter((url) => /[#?]|\.png$|^mailto:/.test(url))).toEqual([]);
    // /about, /about#team, /about?…, /about?ref=sitemap and www.site…/about are one page.
    expect(listed.filter((url) => url.endsWith('/about'))).toEqual([`${home}/about`]);
    expect(listed.filter((url) => url.includes('/products'))).toEqual([`${home}/products`]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('keeps query variants apart with ignoreQueryParameters false', async () => {
    const listed = urls(await map({ url: home, ignoreQueryParameters: false }));
    expect(listed).toEqual(
      expect.arrayContaining([
        `${home}/products?id=1`,
        `${home}/products?id=2`,
        `${home}/about?ref=sitemap`,
        `${home}/about?utm_source=newsletter`,
      ]),
    );
  });

  it('reads only the page with sitemap skip, and only the sitemaps with sitemap only', async () => {
    const skip = urls(await map({ url: home, sitemap: 'skip' }));
    expect(skip).toContain(`${home}/link-only-page`);
    expect(skip).not.toContain(`${home}/sitemap-only-page`);
    expect(skip).not.toContain(`${home}/blog/hello-world`);

    const only = await map({ url: home, sitemap: 'only' });
    expect(urls(only)).toContain(`${home}/sitemap-only-page`);
    expect(urls(only)).not.toContain(`${home}/link-only-page`);
    // The sitemap lists the home page, but it was not fetched: no title.
    expect(only.links.find((link) => link.url === `${home}/`)).toEqual({ url: `${home}/` });
  });

  it('drops subdomains with includeSubdomains false', async () => {
    const listed = urls(await map({ url: home, includeSubdomains: false }));
    expect(listed).toContain(`${home}/pricing`);
    expect(listed.filter((url) => url.includes('docs.site.localhost'))).toEqual([]);
  });

  it('stays under the start path unless filterByPath is false', async () => {
    const underDocs = urls(await map({ url: `${home}/docs` }));
    expect(underDocs).toEqual([`${home}/docs`, `${home}/docs/intro`, `${home}/docs/api`]);

    const whole = urls(await map({ url: `${home}/docs`, filterByPath: false }));
    expect(whole).toContain(`${home}/pricing`);
  });

  it('honours robots.txt unless ignoreRobotsTxt', async () => {
    const listed = urls(await map({ url: home, ignoreRobotsTxt: true }));
    expect(listed).toEqual(expect.arrayContaining([`${home}/private/secret`, `${home}/private/hidden`]));
  });

  it('puts the best match first and keeps only matching links for a search', async () => {
    const pricing = await map({ url: home, search: 'pricing' });
    expect(urls(pricing)).toEqual([`${home}/pricing`]);

    const blog = urls(await map({ url: home, search: 'blog posts' }));
    expect(blog.sort()).toEqual([`${home}/blog/hello-world`, `${home}/blog/second-post`]);

    const byTitle = await map({ url: home, search: 'map fixture home' });
    expect(byTitle.links[0]?.url).toBe(`${home}/`);
  });

  it('returns the whole map when nothing matches the search', async () => {
    const all = await map({ url: home });
    const nothing = await map({ url: home, search: 'zyxwvu' });
    expect(urls(nothing)).toEqual(urls(all));
  });

  it('cuts to limit, 5000 by default', async () => {
    expect((await map({ url: home, limit: 2 })).links).toHaveLength(2);
    const big = await map({ url: site.origin('big') });
    expect(BIG_SITE_PAGES).toBeGreaterThan(5000);
    expect(big.count).toBe(5000);
    expect(big.links).toHaveLength(5000);
  });

  it('suggests the base domain when a path yields fewer than two links', async () => {
    const result = await map({ url: `${home}/lonely/page` });
    expect(urls(result)).toEqual([`${home}/lonely/page`]);
    expect(result.warning).toBe(`Only 1 result(s) found. For broader coverage, try mapping the base domain: ${home}`);
  });

  it('fails with MAP_TIMEOUT when the deadline passes, without waiting for the slow sitemap', async () => {
    const err = await map({ url: site.origin('slow'), timeout: 1500 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    const failure = err as ApplicationFailure;
    expect(failure.message).toBe('Map timed out');
    expect(failure.nonRetryable).toBe(true);
    expect((failure.details?.[0] as { code?: string }).code).toBe('MAP_TIMEOUT');
  });
});
