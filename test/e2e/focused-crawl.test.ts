/**
 * The query-directed crawl (a Trawl extension: `query` on POST /v1|v2/crawl) through the HTTP
 * API, on a generated site with a relevant region and a large irrelevant one
 * (test/helpers/topic-site.ts): best first, stopped with a reason, each page traced; breadth
 * first with the same limit is the baseline it must beat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { startTopicSite, type TopicSite } from '../helpers/topic-site.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: TopicSite;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  // 10 sections of 22 pages and the home page: 22 relevant pages of 221.
  site = await startTopicSite(221);
  api = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'focused-crawl-team'));
});
afterAll(async () => {
  await site?.close();
});

interface CrawledPage {
  path: string;
  crawl?: { depth: number; parentUrl: string | null; score: number; linkScore: number | null };
}

/** Runs a crawl to its end and reads every page it stored, following `next`. */
async function crawl(body: Record<string, unknown>, version = 'v2') {
  const started = await api(`/${version}/crawl`, { body: { url: site.url, sitemap: 'skip', crawlEntireDomain: true, ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const status = await waitForJobEnd(api, 'crawl', started.body.id, 180_000);
  expect(status.status).toBe('completed');
  const pages: CrawledPage[] = [];
  for (let next: string | undefined = `/${version}/crawl/${started.body.id}`; next; ) {
    const res: { body: { data: never[]; next?: string } } = await api(next);
    pages.push(...res.body.data.map((d: { metadata: { sourceURL: string; crawl?: CrawledPage['crawl'] } }) => ({ path: new URL(d.metadata.sourceURL).pathname, crawl: d.metadata.crawl })));
    next = res.body.next;
  }
  const relevant = pages.filter((p) => site.relevant.has(p.path)).length;
  return { id: started.body.id as string, status, pages, relevant };
}

describe('query-directed crawl', () => {
  const limit = Math.floor(221 * 0.3);

  it('reaches at least 90 % of the relevant pages within 30 % of the site, where breadth first with the same limit does not', async () => {
    site.hits.clear();
    const focused = await crawl({ limit, query: { query: site.query } });
    expect(focused.pages.length).toBeLessThanOrEqual(limit);
    expect(focused.relevant).toBeGreaterThanOrEqual(Math.ceil(site.relevant.size * 0.9));
    // Every relevant link was followed; the irrelevant ones, scored 0, were not: it stopped on its own.
    expect(focused.status).toMatchObject({ stopReason: 'no_relevant_pages', coverage: 1, total: focused.pages.length, completed: focused.pages.length });
    // Each page fetched once.
    expect([...site.hits.values()].every((n) => n === 1)).toBe(true);

    const breadthFirst = await crawl({ limit });
    expect(breadthFirst.pages).toHaveLength(limit);
    expect(breadthFirst.relevant).toBeLessThan(site.relevant.size * 0.5);
    // Firecrawl's shape, unchanged, without `query`.
    expect(breadthFirst.status).not.toHaveProperty('stopReason');
    expect(breadthFirst.status).not.toHaveProperty('coverage');
    expect(breadthFirst.pages.every((p) => p.crawl === undefined)).toBe(true);
  });

  it('finds the relevant pages by the text around links when the links themselves say nothing', async () => {
    const vague = await startTopicSite(221, { vague: true });
    try {
      const started = await api('/v2/crawl', { body: { url: vague.url, sitemap: 'skip', limit, query: { query: vague.query } } });
      expect(started.status).toBe(200);
      const status = await waitForJobEnd(api, 'crawl', started.body.id, 180_000);
      expect(status).toMatchObject({ status: 'completed', stopReason: 'no_relevant_pages' });
      const fetched = [...vague.hits.keys()];
      expect(fetched.length).toBeLessThanOrEqual(limit);
      expect(fetched.filter((p) => vague.relevant.has(p)).length).toBeGreaterThanOrEqual(Math.ceil(vague.relevant.size * 0.9));
    } finally {
      await vague.close();
    }
  });

  it('traces each page: its depth, the page that linked it, its score on arrival and its link’s score', async () => {
    const { pages } = await crawl({ limit: 10, query: { query: site.query } });
    expect(pages).toHaveLength(10);
    const home = pages.find((p) => p.path === '/')!;
    expect(home.crawl).toMatchObject({ depth: 0, parentUrl: null, linkScore: 1 });
    const byPath = new Map(pages.map((p) => [p.path, p]));
    for (const page of pages.filter((p) => p.path !== '/')) {
      const trace = page.crawl!;
      expect(trace.depth).toBeGreaterThan(0);
      // Its parent was crawled, one level up.
      const parent = byPath.get(new URL(trace.parentUrl!).pathname);
      expect(parent?.crawl?.depth).toBe(trace.depth - 1);
      expect(trace.linkScore).toBeGreaterThanOrEqual(0.1);
      expect(trace.score).toBeGreaterThanOrEqual(0);
      expect(trace.score).toBeLessThan(1);
    }
  });

  it('stops with limit_reached at its limit, on v1 too', async () => {
    const { status, pages } = await crawl({ limit: 5, query: { query: site.query } }, 'v1');
    expect(pages).toHaveLength(5);
    expect(status).toMatchObject({ stopReason: 'limit_reached', total: 5 });
    expect(status.coverage).toBeGreaterThan(0);
  });

  it('claims best first when its pages are spaced by a delay too (the workflow claims what its free lanes start)', async () => {
    const { status, pages } = await crawl({ limit: 6, delay: 0.05, query: { query: site.query } });
    expect(status).toMatchObject({ stopReason: 'limit_reached', total: 6 });
    // The home page, then the solar section's index: the only link that matches, and the best.
    expect(pages.map((p) => p.path).slice(0, 2)).toEqual(['/', '/solar/0']);
    expect(pages.filter((p) => site.relevant.has(p.path))).toHaveLength(5);
  });

  it('stops once the relevant pages cover the query, when asked to', async () => {
    const { status, relevant } = await crawl({ limit, query: { query: site.query, stopWhen: { coverage: 1, evidence: 3 } } });
    expect(status).toMatchObject({ stopReason: 'coverage_reached', coverage: 1 });
    // Three relevant pages hold every term; a few more were in flight when it stopped.
    expect(relevant).toBeLessThan(site.relevant.size / 2);
  });

  it('stops as saturated when the pages stop being relevant', async () => {
    // Every link is followed (minScore 0), so the crawl wanders off the topic after the solar
    // section, onto pages that hold no query term.
    const { status } = await crawl({ limit: 200, query: { query: 'solar', minScore: 0, stopWhen: { saturation: 5 } }, maxConcurrency: 1 });
    expect(status.stopReason).toBe('saturated');
  });

  it('refuses a malformed query with 400 in the error envelope', async () => {
    for (const query of [
      { query: '' },
      { query: 'the and of' },
      { query: site.query, minScore: 2 },
      { query: site.query, stopWhen: { coverage: 0 } },
      { query: site.query, stopWhen: { evidence: 1.5 } },
      { query: site.query, unknown: true },
      'solar',
    ]) {
      const res = await api('/v2/crawl', { body: { url: site.url, query } });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: expect.any(String) });
    }
  });
});
