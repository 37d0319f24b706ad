/**
 * The point of Temporal: crawls survive crashes and restarts and lose or duplicate no page, and a
 * browser session whose worker dies ends honestly as lost (issue #36). This file runs its own stack so it can SIGKILL workers and restart the API and the Temporal
 * dev server (same SQLite file) in the middle of crawls.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix } from '../../api/auth/api-keys.js';
import { createDb, type Db } from '../../db/connect.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { historyStats } from '../../bench/trawl/workflow-history.js';
import { getProgressQuery } from '../../workflows/messages.js';
import { apiClient } from '../helpers/api-client.js';
import { crawlChecks } from '../helpers/crawl-checks.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { startBigSite, type BigSite } from '../helpers/big-site.js';
import { startPageServer } from '../helpers/page-server.js';
import { dropDatabase, testDatabaseUrl } from '../helpers/test-db.js';
import { E2E_ENV } from '../e2e/global-setup.js';

let stack: Stack;
let db: Db;
let api: ReturnType<typeof apiClient>;
let databaseUrl: string;
let dataDir: string;
const log: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'trawl-durability-'));
  databaseUrl = testDatabaseUrl('trawl_durability');
  stack = await startStack({
    databaseUrl,
    temporal: { port: await findFreePort(), dataDir },
    apiPort: await findFreePort(),
    env: { ...E2E_ENV, CRAWL_PAGES_PER_RUN: '100' },
    log: (line) => log.push(line),
  });
  db = createDb(databaseUrl, { maxConnections: 2 });
  const team = await findOrCreateTeam(db, 'durable');
  const key = generateApiKey();
  await insertApiKey(db, { teamId: team.id, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes: null });
  api = apiClient(stack.apiUrl, key);
  ({ completedPages, waitForPages, expectEveryPageOnce: everyPageOnce } = crawlChecks(db, api));
});

let completedPages: ReturnType<typeof crawlChecks>['completedPages'];
let waitForPages: ReturnType<typeof crawlChecks>['waitForPages'];
let everyPageOnce: ReturnType<typeof crawlChecks>['expectEveryPageOnce'];
const expectEveryPageOnce = (jobId: string, site: BigSite) => everyPageOnce(jobId, site.pages);
/** Every page once, and the stop reason of a query-directed crawl (none for breadth first, whose status is Firecrawl's). */
async function expectEveryPageOnceStopping(jobId: string, site: BigSite, stopReason: string | undefined) {
  const status = await expectEveryPageOnce(jobId, site);
  if (stopReason) expect(status.stopReason).toBe(stopReason);
  else expect(status).not.toHaveProperty('stopReason');
}

afterAll(async () => {
  await stack?.stop();
  await db?.destroy();
  await dropDatabase(databaseUrl);
  rmSync(dataDir, { recursive: true, force: true });
});

async function startCrawl(site: BigSite, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('/v2/crawl', {
    body: { url: site.url, limit: site.pages, sitemap: 'skip', crawlEntireDomain: true, ...extra },
  });
  expect(res.status).toBe(200);
  return res.body.id;
}

describe('scale', () => {
  it('crawls a 5,000-page site with exact counts, no duplicates, and short histories', async () => {
    const site = await startBigSite(5000);
    try {
      const started = Date.now();
      const jobId = await startCrawl(site, { maxConcurrency: 20 });
      await expectEveryPageOnce(jobId, site);
      const seconds = (Date.now() - started) / 1000;
      console.log(`5,000-page crawl: ${seconds.toFixed(1)} s, ${(5000 / seconds).toFixed(1)} pages/s`);

      // Continue-as-new kept each run's history small: 5,000 pages took many runs.
      const connection = await Connection.connect({ address: stack.temporalAddress });
      const client = new Client({ connection });
      const handle = client.workflow.getHandle(`crawl-${jobId}`);
      const progress = await handle.query(getProgressQuery);
      expect(progress.runs).toBeGreaterThanOrEqual(5000 / 100);
      const history = await handle.fetchHistory();
      expect(history.events?.length ?? 0).toBeLessThan(2000);
      await connection.close();
    } finally {
      await site.close();
    }
  });
});

/**
 * Crawls go breadth first, or best first with `query` (a Trawl extension, claimed through another
 * statement: db/repositories/crawl-focus.ts): both keep every claim exactly-once through kills and
 * restarts. The query matches every page of the big site, so a query-directed crawl with the
 * site's size as its limit must still store each page once, and stop at that limit.
 */
const CRAWL_MODES = [
  { mode: 'breadth first', extra: {} as Record<string, unknown>, stopReason: undefined },
  { mode: 'query-directed', extra: { query: { query: 'generated page' } } as Record<string, unknown>, stopReason: 'limit_reached' },
];

describe.each(CRAWL_MODES)('scale-out, $mode', ({ extra, stopReason }) => {
  it('spreads the pages of one crawl over the workers that poll its task queue', async () => {
    // Lanes go to the workers as their slices start, so a split evens out over slices: five runs
    // of 100 pages (CRAWL_PAGES_PER_RUN) start every lane afresh at least five times.
    const site = await startBigSite(500, { delayMs: 20 });
    const second = await stack.startWorker();
    const connection = await Connection.connect({ address: stack.temporalAddress });
    try {
      const jobId = await startCrawl(site, { maxConcurrency: 8, ...extra });
      await expectEveryPageOnceStopping(jobId, site, stopReason);
      const { pagesByWorker } = await historyStats(new Client({ connection }), `crawl-${jobId}`);
      const shares = [...pagesByWorker.values()];
      // Eager activity dispatch once gave one worker 79 of 80 pages.
      expect(shares).toHaveLength(2);
      for (const pages of shares) expect(pages).toBeGreaterThanOrEqual(site.pages * 0.2);
    } finally {
      await connection.close();
      // The crash tests below need a single worker again.
      await second.kill('SIGTERM');
      await site.close();
    }
  });
});

describe.each(CRAWL_MODES)('crawl crashes and restarts, $mode', ({ extra, stopReason }) => {
  it('finishes a crawl whose only worker is SIGKILLed mid-crawl once a new worker starts', async () => {
    const site = await startBigSite(400, { delayMs: 40 });
    try {
      const jobId = await startCrawl(site, { maxConcurrency: 8, ...extra });
      await waitForPages(jobId, 60);
      const [worker] = stack.workers;
      await worker!.kill('SIGKILL');
      const stalledAt = await completedPages(jobId);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await completedPages(jobId)).toBeLessThanOrEqual(stalledAt + 8);
      await stack.startWorker();
      await expectEveryPageOnceStopping(jobId, site, stopReason);
    } finally {
      await site.close();
    }
  });

  it('finishes a crawl when the API restarts mid-crawl', async () => {
    const site = await startBigSite(300, { delayMs: 20 });
    try {
      const jobId = await startCrawl(site, { maxConcurrency: 8, ...extra });
      await waitForPages(jobId, 40);
      await stack.restartApi();
      await expectEveryPageOnceStopping(jobId, site, stopReason);
    } finally {
      await site.close();
    }
  });

  it('finishes a crawl when the Temporal dev server restarts mid-crawl (same SQLite file)', async () => {
    const site = await startBigSite(300, { delayMs: 20 });
    try {
      const jobId = await startCrawl(site, { maxConcurrency: 8, ...extra });
      await waitForPages(jobId, 40);
      await stack.restartTemporal();
      await expectEveryPageOnceStopping(jobId, site, stopReason);
    } finally {
      await site.close();
    }
  });
});

describe('crashes and restarts', () => {
  it('finishes a monitor check whose only worker is SIGKILLed mid-check, every page once', async () => {
    const site = await startBigSite(60, { delayMs: 40 });
    try {
      const urls = Array.from({ length: site.pages }, (_, i) => site.url.replace(/\/p\/0$/, `/p/${i}`));
      const created = await api('/v2/monitor', { body: { name: 'durable', schedule: { text: 'hourly' }, targets: [{ type: 'scrape', id: 'all', urls }] } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const monitorId = created.body.data.id as string;
      const run = await api(`/v2/monitor/${monitorId}/run`, { method: 'POST' });
      expect(run.status).toBe(200);
      const checkId = run.body.data.id as string;
      for (let i = 0; i < 600 && [...site.hits.values()].length < 15; i++) await new Promise((r) => setTimeout(r, 50));
      await stack.workers[0]!.kill('SIGKILL');
      await stack.startWorker();
      let check: { status: string; summary: Record<string, number>; pages: { url: string; status: string }[] } | undefined;
      for (let i = 0; i < 1200; i++) {
        check = (await api(`/v2/monitor/${monitorId}/checks/${checkId}?limit=1000`)).body.data;
        if (!['queued', 'running'].includes(check!.status)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(check).toMatchObject({ status: 'completed', summary: { totalPages: site.pages, new: site.pages } });
      expect(new Set(check!.pages.map((p) => p.url)).size).toBe(site.pages);
      await api(`/v2/monitor/${monitorId}`, { method: 'DELETE' });
    } finally {
      await site.close();
    }
  }, 180_000);

  it('answers a scrape whose only worker is SIGKILLed mid-page from the next worker, charged once', async () => {
    // The page is a local activity of its workflow (workflows/scrape.ts): no heartbeat, so the
    // dead worker is noticed when its workflow task times out, and the next one runs the page again.
    let requests = 0;
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const server = http.createServer((_req, res) => {
      requests += 1;
      const send = () => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Slow</title></head><body><article><h1>Slow</h1><p>Worth the wait.</p></article></body></html>');
      if (requests > 1) return send();
      firstArrived();
      setTimeout(send, 5_000);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
      const pending = api('/v2/scrape', { body: { url, maxAge: 0, timeout: 60_000 } });
      await arrived;
      await stack.workers[0]!.kill('SIGKILL');
      await stack.startWorker();
      const res = await pending;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.markdown).toContain('Worth the wait.');
      expect(requests).toBe(2);
      const charged = await db
        .selectFrom('credit_ledger')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('credits'), eb.lit(0)).as('n'))
        .where('job_id', '=', res.body.data.metadata.scrapeId as string)
        .executeTakeFirstOrThrow();
      expect(Number(charged.n)).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);

  it('finishes a batch whose only worker is SIGKILLed mid-batch, with deliveries in flight repeated under their own ids only', async () => {
    const site = await startBigSite(150, { delayMs: 30 });
    const hooks = await startWebhookReceiver({ delayMs: 300 });
    try {
      const urls = Array.from({ length: site.pages }, (_, i) => site.url.replace(/\/p\/0$/, `/p/${i}`));
      const res = await api('/v2/batch/scrape', { body: { urls, maxConcurrency: 8, webhook: { url: hooks.url, events: ['page', 'completed'] } } });
      expect(res.status).toBe(200);
      const jobId = res.body.id as string;
      await waitForPages(jobId, 40);
      await stack.workers[0]!.kill('SIGKILL');
      await stack.startWorker();
      await everyPageOnce(jobId, site.pages, 'batch/scrape');
      await hooks.waitFor('batch_scrape.completed', 120_000);
      const pages = hooks.deliveries.filter((d) => d.body.type === 'batch_scrape.page');
      const scrapeIds = new Set(pages.map((d) => (d.body.data[0] as { metadata: { scrapeId: string } }).metadata.scrapeId));
      // Every page's event arrived; one that was re-sent after the kill kept its webhookId, so a receiver can drop it.
      expect(scrapeIds.size).toBe(site.pages);
      expect(new Set(pages.map((d) => d.body.webhookId)).size).toBe(site.pages);
    } finally {
      await Promise.all([site.close(), hooks.close()]);
    }
  });

  it('ends a browser session whose worker is SIGKILLed: SESSION_LOST at once, no charge for the time after, the profile as last saved', async () => {
    const page = await startPageServer({ '/a': '<h1>A</h1><p>Page A.</p>' });
    try {
      const created = await api('/v2/browser', { body: { ttl: 600, profile: { name: 'kept', saveChanges: true } } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.id as string;
      const ran = await api(`/v2/browser/${id}/execute`, { body: { code: `open ${page.origin}/a`, language: 'bash' } });
      expect(ran.body).toMatchObject({ success: true, exitCode: 0 });
      const lastSeenAlive = Date.now();
      // A second worker runs the session's workflow on; the first, holding the page, dies.
      const holder = stack.workers[0]!;
      await stack.startWorker();
      await holder.kill('SIGKILL');

      const asked = Date.now();
      const after = await api(`/v2/browser/${id}/execute`, { body: { code: 'get title', language: 'bash' } });
      expect(after).toMatchObject({ status: 410, body: { success: false, code: 'SESSION_LOST' } });
      expect(Date.now() - asked).toBeLessThan(30_000);
      let session = (await api(`/v2/browser/${id}`)).body;
      for (let i = 0; i < 60 && session.status === 'active'; i++) {
        await new Promise((r) => setTimeout(r, 500));
        session = (await api(`/v2/browser/${id}`)).body;
      }
      expect(session).toMatchObject({ status: 'lost', endReason: 'the worker holding it stopped', creditsBilled: 2 });
      // Billed up to the last execute it answered, not the seconds it was gone.
      expect(session.sessionDurationMs).toBeLessThanOrEqual(lastSeenAlive - Date.parse(session.createdAt) + 1_000);
      // The close never ran on the dead worker: nothing was saved over the profile.
      expect((await api('/v2/browser/profiles')).body.profiles).toEqual([]);
      const next = await api('/v2/browser', { body: { ttl: 60 } });
      expect(next.status).toBe(200);
      expect((await api(`/v2/browser/${next.body.id}`, { method: 'DELETE' })).status).toBe(200);
    } finally {
      await page.close();
    }
  });
});
