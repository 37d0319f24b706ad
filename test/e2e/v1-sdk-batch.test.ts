/**
 * The v1 SDK's batch waiter polls `GET /v1/crawl/{batchId}` (#19 item 11). Both SDK generations
 * are driven unmodified: the 4.x package's `v1` client and the last 1.x release (installed as
 * the `firecrawl-v1` alias), whose `batchScrapeUrls` is what older integrations still call.
 */
import Firecrawl from '@mendable/firecrawl-js';
import FirecrawlAppV1 from 'firecrawl-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: CrawlSite;
let key: string;

beforeAll(async () => {
  site = await startCrawlSite();
  key = await createKeyWithCli(databaseUrl, 'v1-sdk-batch-team');
});
afterAll(async () => {
  await site.close();
});

describe('v1 SDK batch scrape', () => {
  it('4.x v1 client: batchScrapeUrls waits on /v1/crawl/{id} and returns the documents', async () => {
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl });
    const urls = [site.url('/docs/a'), site.url('/docs/b')];
    const done = await firecrawl.v1.batchScrapeUrls(urls, { formats: ['markdown'] }, 1);
    expect(done).toMatchObject({ success: true, status: 'completed', completed: 2, total: 2 });
    if (!('data' in done)) throw new Error('no data');
    expect(done.data.map((d) => d.metadata?.sourceURL).sort()).toEqual(urls);
    expect(done.data[0]!.markdown).toContain('crawl fixture site');
  });

  it('1.x SDK: batchScrapeUrls waits on /v1/crawl/{id} and returns the documents', async () => {
    const app = new FirecrawlAppV1({ apiKey: key, apiUrl });
    const urls = [site.url('/docs/c'), site.url('/docs/d')];
    const done = await app.batchScrapeUrls(urls, { formats: ['markdown'] }, 1);
    expect(done).toMatchObject({ success: true, status: 'completed', completed: 2, total: 2 });
    if (!('data' in done)) throw new Error('no data');
    expect(done.data.map((d) => d.metadata?.sourceURL).sort()).toEqual(urls);
  });
});
