/**
 * The worker's /metrics (worker/telemetry.ts): the browser pool's figures as gauges and counters,
 * pages by engine, and the Temporal SDK's exposition appended from its own exporter.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrowserPoolStats } from '../../../browser/browser-pool.js';
import { createWorkerMetrics } from '../../../worker/telemetry.js';
import { sample, typeOf } from '../../helpers/prometheus-text.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const portOf = (server: Server) => (server.address() as AddressInfo).port;

async function fakeTemporalExporter(body: string): Promise<number> {
  const server = createServer((_req, res) => res.end(body));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return portOf(server);
}

function pool() {
  const stats: BrowserPoolStats = { launches: 0, crashes: 0, browsersOpen: 0, pagesServed: 0, pagesReused: 0, openPages: 0, warmPages: 0, slotsInUse: 0, slotsWaiting: 0 };
  return { stats, browser: { stats: () => ({ ...stats }) } };
}

async function start(metrics: ReturnType<typeof createWorkerMetrics>, temporalPort?: number): Promise<(path?: string) => Promise<{ status: number; text: string }>> {
  const server = await metrics.start(0, temporalPort);
  servers.push(server);
  return async (path = '/metrics') => {
    const res = await fetch(`http://127.0.0.1:${portOf(server)}${path}`);
    return { status: res.status, text: await res.text() };
  };
}

describe('worker /metrics', () => {
  it('reports the browser pool as it is at each scrape', async () => {
    const { stats, browser } = pool();
    const get = await start(createWorkerMetrics(browser));
    Object.assign(stats, { launches: 3, crashes: 1, browsersOpen: 1, pagesServed: 40, openPages: 2, slotsInUse: 3, slotsWaiting: 5 });
    const first = (await get()).text;
    expect(sample(first, 'trawl_browser_launches_total')).toBe(3);
    expect(sample(first, 'trawl_browser_crashes_total')).toBe(1);
    expect(sample(first, 'trawl_browser_pages_served_total')).toBe(40);
    expect(sample(first, 'trawl_browsers_open')).toBe(1);
    expect(sample(first, 'trawl_browser_contexts_open')).toBe(2);
    expect(sample(first, 'trawl_browser_pages_in_use')).toBe(3);
    expect(sample(first, 'trawl_browser_pages_waiting')).toBe(5);
    expect(typeOf(first, 'trawl_browser_launches_total')).toBe('counter');
    expect(typeOf(first, 'trawl_browser_pages_in_use')).toBe('gauge');

    Object.assign(stats, { launches: 4, pagesServed: 41, openPages: 0, slotsInUse: 0, slotsWaiting: 0 });
    const second = (await get()).text;
    expect(sample(second, 'trawl_browser_launches_total')).toBe(4);
    expect(sample(second, 'trawl_browser_pages_served_total')).toBe(41);
    expect(sample(second, 'trawl_browser_pages_in_use')).toBe(0);
    expect((await get('/other')).status).toBe(404);
  });

  it('counts pages by engine and outcome, timing the ones that completed', async () => {
    const metrics = createWorkerMetrics(pool().browser);
    const get = await start(metrics);
    metrics.pages.observe('http', 'completed', 120);
    metrics.pages.observe('http', 'completed', 80);
    metrics.pages.observe('browser', 'completed', 2_000);
    metrics.pages.observe('browser', 'failed', 30_000);
    const { text } = await get();
    expect(sample(text, 'trawl_pages_scraped_total', { engine: 'http', outcome: 'completed' })).toBe(2);
    expect(sample(text, 'trawl_pages_scraped_total', { engine: 'browser', outcome: 'failed' })).toBe(1);
    expect(sample(text, 'trawl_page_scrape_seconds_count', { engine: 'http' })).toBe(2);
    expect(sample(text, 'trawl_page_scrape_seconds_sum', { engine: 'http' })).toBeCloseTo(0.2);
    expect(sample(text, 'trawl_page_scrape_seconds_count', { engine: 'browser' })).toBe(1);
    expect(sample(text, 'trawl_page_scrape_seconds_bucket', { engine: 'browser', le: '1' })).toBe(0);
    expect(sample(text, 'trawl_page_scrape_seconds_bucket', { engine: 'browser', le: '2' })).toBe(1);
  });

  it("appends the Temporal exporter's series, and says so when it does not answer", async () => {
    const exporter = await fakeTemporalExporter('# TYPE temporal_worker_task_slots_available gauge\ntemporal_worker_task_slots_available{worker_type="ActivityWorker"} 32\n');
    const withTemporal = await start(createWorkerMetrics(pool().browser), exporter);
    const { text } = await withTemporal();
    expect(sample(text, 'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker' })).toBe(32);
    expect(sample(text, 'trawl_browser_launches_total')).toBe(0);

    await Promise.all(servers.splice(0, 1).map((s) => new Promise((resolve) => s.close(resolve))));
    const down = await withTemporal();
    expect(down.status).toBe(200);
    expect(down.text).toMatch(/^# Temporal SDK metrics unavailable: /m);
    expect(sample(down.text, 'trawl_browser_launches_total')).toBe(0);
  });
});
