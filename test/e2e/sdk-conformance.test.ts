/**
 * The official SDK 4.42, unmodified, on the methods no other file drives (issue #34 §6): the
 * monitor methods, the v2 client's v1-named aliases, and the 4.x package's own v1 client. The
 * README's conformance table names the file that proves each method.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: CrawlSite;
let firecrawl: Firecrawl;

beforeAll(async () => {
  site = await startCrawlSite();
  firecrawl = new Firecrawl({ apiKey: await createKeyWithCli(databaseUrl, 'sdk-conformance'), apiUrl });
});
afterAll(async () => {
  await site?.close();
});

describe('monitor methods', () => {
  it('createMonitor, getMonitor, listMonitors, updateMonitor, runMonitor, listMonitorChecks, getMonitorCheck, deleteMonitor', async () => {
    const created = await firecrawl.createMonitor({ name: 'docs', schedule: { text: 'every day' }, targets: [{ type: 'scrape', urls: [site.url('/docs/a')] }] });
    expect(created).toMatchObject({ id: expect.any(String), name: 'docs', status: 'active' });
    expect(await firecrawl.getMonitor(created.id)).toMatchObject({ id: created.id, name: 'docs' });
    expect((await firecrawl.listMonitors()).map((m) => m.id)).toContain(created.id);
    expect(await firecrawl.updateMonitor(created.id, { name: 'renamed', status: 'paused' })).toMatchObject({ name: 'renamed', status: 'paused' });
    const run = await firecrawl.runMonitor(created.id);
    expect(run).toMatchObject({ monitorId: created.id, trigger: 'manual' });
    await vi.waitFor(async () => expect((await firecrawl.getMonitorCheck(created.id, run.id)).status).toBe('completed'), { timeout: 60_000, interval: 300 });
    const check = await firecrawl.getMonitorCheck(created.id, run.id);
    expect(check.summary).toMatchObject({ totalPages: 1, new: 1 });
    expect((await firecrawl.listMonitorChecks(created.id)).map((c) => c.id)).toEqual([run.id]);
    expect(await firecrawl.deleteMonitor(created.id)).toBe(true);
    await expect(firecrawl.getMonitor(created.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("the v2 client's v1-named aliases", () => {
  it('scrapeUrl, mapUrl, crawlUrl, asyncCrawlUrl, checkCrawlStatus, checkCrawlErrors', async () => {
    expect((await firecrawl.scrapeUrl(site.url('/docs/a'))).markdown).toContain('crawl fixture site');
    expect((await firecrawl.mapUrl(site.url('/'))).links.map((l) => l.url)).toContain(site.url('/docs/a'));
    const crawled = await firecrawl.crawlUrl(site.url('/docs/'), { limit: 2, pollInterval: 0.2 });
    expect(crawled).toMatchObject({ status: 'completed', completed: 2 });
    const started = await firecrawl.asyncCrawlUrl(site.url('/docs/'), { limit: 2 });
    await vi.waitFor(async () => expect((await firecrawl.checkCrawlStatus(started.id)).status).toBe('completed'), { timeout: 60_000, interval: 300 });
    expect(await firecrawl.checkCrawlErrors(started.id)).toMatchObject({ errors: [], robotsBlocked: [] });
  });

  it('batchScrapeUrls, asyncBatchScrapeUrls, checkBatchScrapeStatus, checkBatchScrapeErrors', async () => {
    const urls = [site.url('/docs/a'), site.url('/docs/b')];
    expect(await firecrawl.batchScrapeUrls(urls, { pollInterval: 0.2 })).toMatchObject({ status: 'completed', completed: 2 });
    const started = await firecrawl.asyncBatchScrapeUrls(urls);
    await vi.waitFor(async () => expect((await firecrawl.checkBatchScrapeStatus(started.id)).status).toBe('completed'), { timeout: 60_000, interval: 300 });
    expect((await firecrawl.checkBatchScrapeErrors(started.id)).errors).toEqual([]);
  });
});

describe("the 4.x package's v1 client", () => {
  // Its methods read `params.origin` without a guard, so every call passes params (as the SDK's own
  // examples do). Its checkCrawlErrors and checkBatchScrapeErrors send DELETE to `/errors`, which
  // Firecrawl does not serve either; the README's table says so.
  it('mapUrl, crawlUrl, asyncCrawlUrl, checkCrawlStatus, cancelCrawl', async () => {
    const v1 = firecrawl.v1;
    expect(await v1.mapUrl(site.url('/'), {})).toMatchObject({ success: true, links: expect.arrayContaining([site.url('/docs/a')]) });
    expect(await v1.crawlUrl(site.url('/docs/'), { limit: 2 }, 1)).toMatchObject({ success: true, status: 'completed', completed: 2 });
    const started = await v1.asyncCrawlUrl(site.url('/docs/'), { limit: 2 });
    if (!('id' in started) || !started.id) throw new Error(JSON.stringify(started));
    await vi.waitFor(async () => expect(await v1.checkCrawlStatus(started.id)).toMatchObject({ status: 'completed' }), { timeout: 60_000, interval: 300 });
    const long = await v1.asyncCrawlUrl(site.url('/'), { limit: 50 });
    if (!('id' in long) || !long.id) throw new Error(JSON.stringify(long));
    expect(await v1.cancelCrawl(long.id)).toMatchObject({ status: 'cancelled' });
  });

  it('asyncBatchScrapeUrls, checkBatchScrapeStatus; the usage methods', async () => {
    const v1 = firecrawl.v1;
    const started = await v1.asyncBatchScrapeUrls([site.url('/docs/a')], {});
    if (!('id' in started) || !started.id) throw new Error(JSON.stringify(started));
    await vi.waitFor(async () => expect(await v1.checkBatchScrapeStatus(started.id)).toMatchObject({ status: 'completed', completed: 1 }), { timeout: 60_000, interval: 300 });
    expect(await v1.getCreditUsage()).toMatchObject({ success: true, data: { remaining_credits: expect.any(Number) } });
    expect(await v1.getTokenUsage()).toMatchObject({ success: true, data: { remaining_tokens: expect.any(Number) } });
    expect(await v1.getQueueStatus()).toMatchObject({ success: true });
  });

  it('crawlUrlAndWatch and batchScrapeUrlsAndWatch (the v1 WebSocket), getCreditUsageHistorical, getTokenUsageHistorical', async () => {
    const v1 = firecrawl.v1;
    /** The watcher's documents, and its end: `done`, or `error` with its message. */
    const watch = (watcher: Awaited<ReturnType<typeof v1.crawlUrlAndWatch>>) =>
      new Promise<{ status: string; urls: string[] }>((resolve, reject) => {
        const urls: string[] = [];
        watcher.addEventListener('document', (e) => {
          urls.push(String((e.detail.metadata as { sourceURL?: string } | undefined)?.sourceURL));
        });
        watcher.addEventListener('done', (e) => resolve({ status: e.detail.status, urls }));
        watcher.addEventListener('error', (e) => reject(new Error(e.detail.error)));
      });
    const crawled = await watch(await v1.crawlUrlAndWatch(site.url('/docs/'), { limit: 2 }));
    expect(crawled.status).toBe('completed');
    expect(new Set(crawled.urls).size).toBe(2);
    const batched = await watch(await v1.batchScrapeUrlsAndWatch([site.url('/docs/a'), site.url('/docs/b')], {}));
    expect(batched.status).toBe('completed');
    expect(new Set(batched.urls)).toEqual(new Set([site.url('/docs/a'), site.url('/docs/b')]));
    const credits = await v1.getCreditUsageHistorical();
    expect(credits).toMatchObject({ success: true, periods: expect.any(Array) });
    expect(await v1.getTokenUsageHistorical()).toMatchObject({ success: true, periods: expect.any(Array) });
  });
});
