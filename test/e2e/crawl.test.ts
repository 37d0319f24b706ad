/**
 * Crawls end to end through the official SDK and plain HTTP, on the fixture site in
 * test/helpers/crawl-site.ts. Each test names the crawl rule it proves.
 */
import { createHmac } from 'node:crypto';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '../../db/connect.js';
import { setWebhookSecret } from '../../db/repositories/webhook-secrets.js';
import { apiClient } from '../helpers/api-client.js';
import { closedPort } from '../helpers/closed-port.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: CrawlSite;
let key: string;
let firecrawl: Firecrawl;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  site = await startCrawlSite();
  key = await createKeyWithCli(databaseUrl, 'crawl-team');
  firecrawl = new Firecrawl({ apiKey: key, apiUrl });
  api = apiClient(apiUrl, key);
});
afterAll(async () => {
  await site.close();
});
beforeEach(() => site.reset());

/** Runs a crawl to the end with the SDK's waiter and returns the scraped paths. */
async function crawlPaths(url: string, options: Record<string, unknown> = {}) {
  const job = await firecrawl.crawl(url, { pollInterval: 1, timeout: 120, ...options });
  if (job.status !== 'completed') {
    throw new Error(`crawl ended ${job.status}: ${JSON.stringify((await api(`/v2/crawl/${job.id}?limit=1`)).body)}`);
  }
  const paths = job.data.map((d) => {
    const u = new URL(d.metadata!.sourceURL as string);
    return u.hostname === 'site.localhost' ? `${u.pathname}${u.search}` : `${u.hostname}${u.pathname}`;
  });
  return { job, paths: paths.sort() };
}

describe('discovery and politeness', () => {
  it('crawls links and nested sitemaps, honours robots.txt, drops fragments and dedupes URL variants', async () => {
    const { job, paths } = await crawlPaths(site.url('/'));
    expect(paths).toEqual(
      [
        '/',
        '/anchors',
        '/blog/post-1',
        '/docs/a',
        '/docs/a/deeper',
        '/docs/a?utm_source=newsletter',
        '/docs/b',
        '/docs/c',
        '/docs/d',
        '/only-in-sitemap',
        '/query?b=2&a=1',
      ].sort(),
    );
    // Every page exactly once, and the counts add up.
    expect(new Set(paths).size).toBe(paths.length);
    expect(job.completed).toBe(paths.length);
    // /broken failed (recorded below), so completed + failed == total.
    expect(job.total).toBe(paths.length + 1);

    const errors = await firecrawl.getCrawlErrors(job.id!);
    expect(errors.robotsBlocked).toEqual([site.url('/private/secret')]);
    expect(errors.errors).toHaveLength(1);
    expect(errors.errors[0]).toMatchObject({ url: site.url('/broken') });
    // The robots.txt-disallowed page was never requested.
    expect(site.requests.some((r) => r.path.startsWith('/private'))).toBe(false);
    // The always-500 page was tried (with retries) but stored once.
    expect(site.requests.filter((r) => r.path === '/broken').length).toBeGreaterThanOrEqual(1);
  });

  it('follows subdomains only with allowSubdomains, and other sites only with allowExternalLinks', async () => {
    const sub = await crawlPaths(site.url('/'), { allowSubdomains: true, sitemap: 'skip', limit: 30 });
    expect(sub.paths).toContain('blog.site.localhost/');
    expect(sub.paths).not.toContain('other.localhost/');
    const ext = await crawlPaths(site.url('/'), { allowExternalLinks: true, sitemap: 'skip', limit: 40 });
    expect(ext.paths).toContain('other.localhost/');
  });

  it('applies includePaths, excludePaths and regexOnFullURL', async () => {
    const inc = await crawlPaths(site.url('/'), { includePaths: ['^/docs/[a-c]$'], sitemap: 'skip' });
    expect(inc.paths).toEqual(['/', '/docs/a', '/docs/a?utm_source=newsletter', '/docs/b', '/docs/c']);
    const exc = await crawlPaths(site.url('/'), { excludePaths: ['^/docs'], sitemap: 'skip' });
    expect(exc.paths.some((p) => p.startsWith('/docs'))).toBe(false);
    expect(exc.paths).toContain('/blog/post-1');
    const full = await crawlPaths(site.url('/'), {
      includePaths: [`^http://site\\.localhost:${site.port}/blog/`],
      regexOnFullURL: true,
      sitemap: 'skip',
    });
    expect(full.paths).toEqual(['/', '/blog/post-1']);
  });

  it('stops at maxDiscoveryDepth and at limit', async () => {
    const shallow = await crawlPaths(site.url('/docs/a'), { maxDiscoveryDepth: 1, sitemap: 'skip', crawlEntireDomain: true });
    expect(shallow.paths).toContain('/docs/b');
    expect(shallow.paths).not.toContain('/docs/c');
    const limited = await crawlPaths(site.url('/'), { limit: 3 });
    expect(limited.paths).toHaveLength(3);
    expect(limited.job.total).toBe(3);
  });

  it('stays under the start path unless crawlEntireDomain', async () => {
    const under = await crawlPaths(site.url('/docs/a'), { sitemap: 'skip' });
    expect(under.paths).toEqual(['/docs/a', '/docs/a/deeper', '/docs/a?utm_source=newsletter']);
    const entire = await crawlPaths(site.url('/docs/a'), { sitemap: 'skip', crawlEntireDomain: true });
    expect(entire.paths).toContain('/docs/b');
    expect(entire.paths).toContain('/docs/d');
  });

  it('uses only the sitemap with sitemap "only", and never with "skip"', async () => {
    const only = await crawlPaths(site.url('/'), { sitemap: 'only' });
    expect(only.paths).toEqual(['/', '/docs/a', '/only-in-sitemap']);
    const skip = await crawlPaths(site.url('/'), { sitemap: 'skip' });
    expect(skip.paths).not.toContain('/only-in-sitemap');
  });

  it('treats query variants as one page with ignoreQueryParameters', async () => {
    const { paths } = await crawlPaths(site.url('/'), { ignoreQueryParameters: true, sitemap: 'skip' });
    expect(paths).toContain('/query');
    expect(paths).toContain('/docs/a');
    expect(paths.filter((p) => p.startsWith('/query') || p.startsWith('/docs/a?'))).toEqual(['/query']);
  });

  it('folds www and bare hosts with deduplicateSimilarURLs (the default), and keeps both without it', async () => {
    // "/" links to /docs/a and /docs/b; /docs/b links to www.site.localhost/docs/a.
    const folded = await crawlPaths(site.url('/'), { sitemap: 'skip', maxDiscoveryDepth: 2 });
    expect(folded.paths).toContain('/docs/a');
    expect(folded.paths).not.toContain('www.site.localhost/docs/a');
    const kept = await crawlPaths(site.url('/'), { sitemap: 'skip', maxDiscoveryDepth: 2, deduplicateSimilarURLs: false });
    expect(kept.paths).toContain('www.site.localhost/docs/a');
  });

  it('keeps at most maxConcurrency pages in flight, and spaces requests by delay', async () => {
    await crawlPaths(site.url('/slow-index'), { maxConcurrency: 2, sitemap: 'skip', ignoreRobotsTxt: true, crawlEntireDomain: true });
    expect(site.peakInFlight()).toBeLessThanOrEqual(2);
    expect(site.peakInFlight()).toBe(2);

    site.reset();
    await crawlPaths(site.url('/docs/a'), { delay: 1, sitemap: 'skip' });
    const times = site.requests.map((r) => r.at);
    expect(times.length).toBe(3);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);
    expect(site.peakInFlight()).toBe(1);
  });
});

describe('job lifecycle', () => {
  it('returns {success, id, url} built from the request host, and never 404s a fresh id', async () => {
    const res = await api('/v2/crawl', { body: { url: site.url('/'), limit: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, url: `${apiUrl}/v2/crawl/${res.body.id}` });
    const status = await api(`/v2/crawl/${res.body.id}`);
    expect(status.status).toBe(200);
    expect(['scraping', 'completed']).toContain(status.body.status);
  });

  it('cancels through Temporal: no new pages start, status reads cancelled, a second cancel is 409', async () => {
    const started = await firecrawl.startCrawl(site.url('/slow-index'), { maxConcurrency: 1, sitemap: 'skip', ignoreRobotsTxt: true, crawlEntireDomain: true });
    await waitUntil(() => site.requests.some((r) => r.path.startsWith('/slow/')));
    expect(await firecrawl.cancelCrawl(started.id)).toBe(true);
    const status = await api(`/v2/crawl/${started.id}`);
    expect(status.body.status).toBe('cancelled');
    const seen = site.requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(site.requests.length).toBeLessThanOrEqual(seen + 1);
    const again = await api(`/v2/crawl/${started.id}`, { method: 'DELETE' });
    expect(again.status).toBe(409);
    expect(again.body.success).toBe(false);
    const after = await api(`/v2/crawl/${started.id}`);
    expect(after.body.completed + (after.body.failed ?? 0)).toBeLessThanOrEqual(after.body.total);
  });

  it('answers 409 to cancelling a finished crawl', async () => {
    const { job } = await crawlPaths(site.url('/docs/d'), { sitemap: 'skip' });
    const res = await api(`/v2/crawl/${job.id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
  });

  it('lists running crawls of the caller only, with their options', async () => {
    // Made first: the admin CLI takes seconds on a loaded machine, and the crawl must still run at the cancel.
    const other = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'someone-else'));
    const started = await firecrawl.startCrawl(site.url('/slow-index'), { maxConcurrency: 1, sitemap: 'skip', ignoreRobotsTxt: true, crawlEntireDomain: true });
    const active = await firecrawl.getActiveCrawls();
    const mine = active.crawls.find((c) => c.id === started.id);
    expect(mine).toBeDefined();
    expect(mine!.url).toBe(site.url('/slow-index'));
    expect((mine as any).options.scrapeOptions.formats).toBeDefined();
    const v1 = await api('/v1/crawl/active');
    expect(v1.body.crawls.some((c: { id: string }) => c.id === started.id)).toBe(true);
    expect((await other('/v2/crawl/active')).body.crawls).toEqual([]);
    await firecrawl.cancelCrawl(started.id);
  });

  it('accepts v1 names on /v1/crawl', async () => {
    const res = await api('/v1/crawl', { body: { url: site.url('/docs/a'), maxDepth: 0, allowBackwardLinks: true, ignoreSitemap: true } });
    expect(res.status).toBe(200);
    expect(res.body.url).toContain('/v1/crawl/');
    const job = await waitForJobEnd(api, 'crawl', res.body.id);
    expect(job.data.map((d: any) => d.metadata.sourceURL)).toEqual([site.url('/docs/a')]);
  });

  it('rejects an invalid path regex with 400', async () => {
    const res = await api('/v2/crawl', { body: { url: site.url('/'), includePaths: ['(unclosed'] } });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('honours x-idempotency-key: a reused key gets 409', async () => {
    const idem = '9c6f8a2e-3f1b-4e5a-9d7c-2b1a0e4f6d8c';
    const first = await api('/v2/crawl', { body: { url: site.url('/docs/d'), sitemap: 'skip' }, headers: { 'x-idempotency-key': idem } });
    expect(first.status).toBe(200);
    const second = await api('/v2/crawl', { body: { url: site.url('/docs/d') }, headers: { 'x-idempotency-key': idem } });
    expect(second.status).toBe(409);
  });
});

describe('webhooks', () => {
  const receiver = useWebhookReceiver();

  it('sends started, one page per document (matched by scrapeId) and completed, signed when the team has a secret', async () => {
    const db = createDb(databaseUrl, { maxConnections: 1 });
    await setWebhookSecret(db, { name: 'crawl-team' }, 'hook-secret');
    await db.destroy();
    const { job } = await crawlPaths(site.url('/docs/a'), {
      sitemap: 'skip',
      webhook: { url: receiver.url, headers: { 'x-custom': 'yes' }, metadata: { tag: 't1' } },
    });
    const completed = await receiver.waitFor('crawl.completed');
    const mine = receiver.deliveries.filter((d) => d.body.id === job.id);
    const types = mine.map((d) => d.body.type);
    expect(types[0]).toBe('crawl.started');
    expect(types.at(-1)).toBe('crawl.completed');
    const pages = mine.filter((d) => d.body.type === 'crawl.page');
    expect(pages).toHaveLength(job.data.length);
    const scrapeIds = new Set(job.data.map((d) => d.metadata!.scrapeId));
    for (const p of pages) expect(scrapeIds.has(p.body.data[0].metadata.scrapeId)).toBe(true);
    for (const d of mine) {
      expect(d.headers['x-custom']).toBe('yes');
      expect(d.body.metadata).toEqual({ tag: 't1' });
      const expected = `sha256=${createHmac('sha256', 'hook-secret').update(d.raw).digest('hex')}`;
      expect(d.headers['x-firecrawl-signature']).toBe(expected);
    }
    expect(completed.body.data).toEqual([]);
  });

  it('sends only the events asked for', async () => {
    const { job } = await crawlPaths(site.url('/docs/d'), { sitemap: 'skip', webhook: { url: receiver.url, events: ['completed'] } });
    await receiver.waitFor('crawl.completed');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.deliveries.filter((d) => d.body.id === job.id).map((d) => d.body.type)).toEqual(['crawl.completed']);
  });

  it('lists failed deliveries under /errors while the job itself completes', async () => {
    const closed = await closedPort();
    const { job } = await crawlPaths(site.url('/docs/d'), {
      sitemap: 'skip',
      limit: 1,
      webhook: { url: `http://127.0.0.1:${closed}/hook`, events: ['completed'] },
    });
    expect(job.status).toBe('completed');
    const { id } = job;
    let failures: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 100 && failures.length === 0; i++) {
      failures = (await api(`/v2/crawl/${id}/errors`)).body.webhookFailures;
      if (failures.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(failures[0]).toMatchObject({
      event: 'crawl.completed',
      attempt: 1,
      final: false,
      code: 'WEBHOOK_DELIVERY_FAILED',
      error: expect.stringContaining(`127.0.0.1:${closed}`),
    });
    // The crawl's own errors stay about its pages.
    expect((await api(`/v2/crawl/${id}/errors`)).body.errors).toEqual([]);
  });

});

async function waitUntil(predicate: () => boolean, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
