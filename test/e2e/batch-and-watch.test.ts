/**
 * Batch scrapes, status pagination and the WebSocket watcher, end to end through the SDK and a
 * plain `ws` client.
 */
import Firecrawl from '@mendable/firecrawl-js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { startBigSite, type BigSite } from '../helpers/big-site.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: CrawlSite;
let big: BigSite;
let key: string;
let firecrawl: Firecrawl;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  site = await startCrawlSite();
  big = await startBigSite(40);
  key = await createKeyWithCli(databaseUrl, 'batch-team');
  firecrawl = new Firecrawl({ apiKey: key, apiUrl });
  api = apiClient(apiUrl, key);
});
afterAll(async () => {
  await site.close();
  await big.close();
});

describe('batch scrape', () => {
  it('scrapes a list of URLs through the SDK and reports invalid ones', async () => {
    const urls = [site.url('/docs/a'), site.url('/docs/b'), 'not a url at all', site.url('/broken')];
    const started = await firecrawl.startBatchScrape(urls, { options: { formats: ['markdown'] }, ignoreInvalidURLs: true });
    expect(started.invalidURLs).toEqual(['not a url at all']);
    const job = await firecrawl.getBatchScrapeStatus(started.id);
    expect(job.id).toBe(started.id);
    const done = await firecrawl.batchScrape([site.url('/docs/c'), site.url('/docs/d')], { pollInterval: 1, timeout: 60 });
    expect(done.status).toBe('completed');
    expect(done.data.map((d) => d.metadata!.sourceURL).sort()).toEqual([site.url('/docs/c'), site.url('/docs/d')]);
    expect(done.data[0]!.markdown).toContain('crawl fixture site');

    const finished = await waitForJobEnd(api, 'batch/scrape', started.id);
    expect(finished.completed).toBe(2);
    expect(finished.total).toBe(3);
    const errors = await firecrawl.getBatchScrapeErrors(started.id);
    expect(errors.errors.map((e) => e.url)).toEqual([site.url('/broken')]);
  });

  it('rejects invalid URLs with 400 when ignoreInvalidURLs is false', async () => {
    const res = await api('/v2/batch/scrape', { body: { urls: [site.url('/'), 'nope://x'], ignoreInvalidURLs: false } });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('honours x-idempotency-key (a reused key gets 409)', async () => {
    const idem = '1f0e5c2a-8b7d-4c6e-9a5f-3d2c1b0a9e8f';
    const first = await api('/v2/batch/scrape', { body: { urls: [site.url('/docs/d')] }, headers: { 'x-idempotency-key': idem } });
    expect(first.status).toBe(200);
    const again = await api('/v2/batch/scrape', { body: { urls: [site.url('/docs/d')] }, headers: { 'x-idempotency-key': idem } });
    expect(again.status).toBe(409);
  });

  it('appends URLs to a finished batch with appendToId', async () => {
    const first = await firecrawl.batchScrape([site.url('/docs/a')], { pollInterval: 1, timeout: 60 });
    const appended = await api('/v2/batch/scrape', { body: { urls: [site.url('/docs/b')], appendToId: first.id } });
    expect(appended.status).toBe(200);
    expect(appended.body.id).toBe(first.id);
    const job = await waitForJobEnd(api, 'batch/scrape', first.id!);
    expect(job.completed).toBe(2);
  });

  it('cancels a running batch, and a second cancel is 409', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => site.url(`/slow/${i}`));
    const started = await firecrawl.startBatchScrape(urls, { maxConcurrency: 1 });
    expect(await firecrawl.cancelBatchScrape(started.id)).toBe(true);
    expect((await api(`/v2/batch/scrape/${started.id}`)).body.status).toBe('cancelled');
    expect((await api(`/v2/batch/scrape/${started.id}`, { method: 'DELETE' })).status).toBe(409);
  });

  describe('webhooks', () => {
    const receiver = useWebhookReceiver();

    it('sends batch_scrape.started, .page and .completed', async () => {
      const done = await firecrawl.batchScrape([site.url('/docs/a'), site.url('/docs/b')], {
        webhook: receiver.url,
        pollInterval: 1,
        timeout: 60,
      });
      await receiver.waitFor('batch_scrape.completed');
      const types = receiver.deliveries.filter((d) => d.body.id === done.id).map((d) => d.body.type);
      expect(types).toEqual(['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed']);
    });
  });
});

describe('status pagination', () => {
  let jobId: string;
  beforeAll(async () => {
    const job = await firecrawl.crawl(big.url, { crawlEntireDomain: true, sitemap: 'skip', pollInterval: 1, timeout: 120 });
    expect(job.status).toBe('completed');
    expect(job.data).toHaveLength(40);
    jobId = job.id!;
  });

  it('pages with skip/limit and an absolute next, only while more documents exist', async () => {
    const seen = new Set<string>();
    let url: string | undefined = `${apiUrl}/v2/crawl/${jobId}?limit=15`;
    const cursors = new Set<string>();
    while (url) {
      expect(cursors.has(url)).toBe(false);
      cursors.add(url);
      const res: { status: number; body: any } = await api(url);
      expect(res.status).toBe(200);
      for (const d of res.body.data) seen.add(d.metadata.scrapeId);
      expect(res.body.data.length).toBeGreaterThan(0);
      url = res.body.next;
      if (url) expect(url.startsWith(`${apiUrl}/v2/crawl/${jobId}?skip=`)).toBe(true);
    }
    expect(seen.size).toBe(40);
    const past = await api(`/v2/crawl/${jobId}?skip=40`);
    expect(past.body.data).toEqual([]);
    expect(past.body.next).toBeUndefined();
  });

  it('the SDK auto-paginates getCrawlStatus to every document', async () => {
    const status = await firecrawl.getCrawlStatus(jobId);
    expect(status.data).toHaveLength(40);
    expect(new Set(status.data.map((d) => d.metadata!.scrapeId)).size).toBe(40);
    expect(status.completed).toBe(40);
    expect(status.total).toBe(40);
  });

  it('answers 404 for an unknown id and for a crawl id under the batch path', async () => {
    expect((await api('/v2/crawl/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api(`/v2/batch/scrape/${jobId}`)).status).toBe(404);
  });
});

describe('WebSocket watcher', () => {
  it('echoes the key as subprotocol, sends catchup then documents, and closes 1000 when done', async () => {
    const started = await firecrawl.startCrawl(site.url('/slow-index'), { crawlEntireDomain: true, sitemap: 'skip', ignoreRobotsTxt: true, maxConcurrency: 4 });
    const wsUrl = `${apiUrl.replace('http', 'ws')}/v2/crawl/${started.id}`;
    const ws = new WebSocket(wsUrl, key);
    const messages: { type: string; data: any }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
      ws.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      ws.on('error', reject);
    });
    await new Promise((resolve) => ws.once('open', resolve));
    expect(ws.protocol).toBe(key);
    const { code, reason } = await closed;
    expect(code).toBe(1000);
    expect(JSON.parse(reason)).toEqual({ type: 'done' });
    expect(messages[0]!.type).toBe('catchup');
    const docs = [...messages[0]!.data.data, ...messages.filter((m) => m.type === 'document').map((m) => m.data)];
    const ids = docs.map((d) => d.metadata.scrapeId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(13);
  });

  it('works on the batch path too, and refuses another team', async () => {
    const started = await firecrawl.startBatchScrape([site.url('/docs/a'), site.url('/docs/b')]);
    const ws = new WebSocket(`${apiUrl.replace('http', 'ws')}/v2/batch/scrape/${started.id}`, key);
    const closed = new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(await closed).toBe(1000);

    const otherKey = await createKeyWithCli(databaseUrl, 'ws-other-team');
    const foreign = new WebSocket(`${apiUrl.replace('http', 'ws')}/v2/batch/scrape/${started.id}`, otherKey);
    const foreignClose = new Promise<number>((resolve) => foreign.on('close', (c) => resolve(c)));
    expect(await foreignClose).toBe(1008);
  });

  it('the SDK watcher streams the crawl over the global WebSocket (Node 22+) instead of polling for it', async () => {
    // The SDK takes globalThis.WebSocket when there is one (Node 22+) and polls otherwise; a
    // subclass records what arrives over the sockets it opens. The SDK caches the constructor at
    // first use, so this must be the first watcher in this file's module graph. (After our close
    // with reason `done`, the v2 SDK reads the final status once over HTTP for its `done` event.)
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
    const frames: { type: string; data: any }[] = [];
    const sockets: { url: string; protocol: string }[] = [];
    class RecordingWebSocket extends globalThis.WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener('open', () => sockets.push({ url: this.url, protocol: this.protocol }));
        this.addEventListener('message', (event) => frames.push(JSON.parse(String(event.data))));
      }
    }
    vi.stubGlobal('WebSocket', RecordingWebSocket);
    try {
      const started = await firecrawl.startCrawl(site.url('/slow-index'), { crawlEntireDomain: true, sitemap: 'skip', ignoreRobotsTxt: true, maxConcurrency: 4 });
      const watcher = firecrawl.watcher(started.id, { kind: 'crawl', pollInterval: 1, timeout: 60 });
      const emitted = new Set<string>();
      watcher.on('document', (doc: any) => emitted.add(doc.metadata.scrapeId));
      const done = new Promise<any>((resolve) => watcher.on('done', resolve));
      void watcher.start();
      expect((await done).status).toBe('completed');
      watcher.close();

      expect(sockets).toEqual([{ url: `${apiUrl.replace('http', 'ws')}/v2/crawl/${started.id}`, protocol: key }]);
      expect(frames[0]!.type).toBe('catchup');
      const overSocket = [...frames[0]!.data.data, ...frames.filter((f) => f.type === 'document').map((f) => f.data)];
      const ids = new Set(overSocket.map((d) => d.metadata.scrapeId as string));
      expect(ids.size).toBe(13);
      // Documents streamed while the crawl ran, not only the catch-up of a finished one.
      expect(frames.some((f) => f.type === 'document')).toBe(true);
      expect(emitted).toEqual(ids);
    } finally {
      vi.unstubAllGlobals();
    }
  });

});
