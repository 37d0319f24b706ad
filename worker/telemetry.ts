/**
 * The worker's telemetry: Temporal's runtime logs through the service's pino logger, with the
 * job and team of the activity on every line; and, with WORKER_METRICS_PORT, a /metrics of its
 * own: the browser pool's gauges, the pages it scraped, and the Temporal SDK's metrics (served by
 * the runtime's Prometheus exporter on a loopback port, appended to ours).
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { DefaultLogger, Runtime, type ActivityInterceptorsFactory, type LogLevel } from '@temporalio/worker';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PageMetrics } from '../activities/deps.js';
import type { BrowserPool } from '../browser/browser-pool.js';
import type { Logger } from '../lib/log.js';

const LEVELS: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', fatal: 'ERROR', silent: 'ERROR' };

/** Installs Temporal's runtime once, before any connection: its logger, and its metrics exporter when asked. */
export function installRuntime(log: Logger, level: string, temporalMetricsPort?: number): void {
  Runtime.install({
    logger: new DefaultLogger(LEVELS[level] ?? 'INFO', (entry) => {
      const method = entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      log[method]({ ...entry.meta }, entry.message);
    }),
    ...(temporalMetricsPort && { telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${temporalMetricsPort}` } } } }),
  });
}

/** Adds the job, team and URL an activity works for to its log lines (Temporal adds the workflow id). */
export const jobLogAttributes: ActivityInterceptorsFactory = () => {
  let attributes: Record<string, unknown> = {};
  return {
    inbound: {
      execute(input, next) {
        const first = input.args[0] as Record<string, unknown> | undefined;
        if (first && typeof first === 'object') {
          attributes = Object.fromEntries(['jobId', 'teamId'].filter((k) => typeof first[k] === 'string').map((k) => [k, first[k]]));
        }
        return next(input);
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        return next({ ...input, ...attributes });
      },
    },
  };
};

export interface WorkerMetrics {
  pages: PageMetrics;
  start(port: number, temporalMetricsPort?: number): Promise<Server>;
}

export function createWorkerMetrics(browser: BrowserPool): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'trawl_worker_' });
  const stats = () => browser.stats();
  new Gauge({ name: 'trawl_browser_contexts_open', help: 'Browser contexts (one per page in use) open now', registers: [registry], collect() { this.set(stats().openPages); } });
  new Gauge({ name: 'trawl_browser_launches', help: 'Browsers launched by this worker (the first, then relaunches after crashes or retirement)', registers: [registry], collect() { this.set(stats().launches); } });
  new Gauge({ name: 'trawl_browser_pages_served', help: 'Browser pages handed out by this worker', registers: [registry], collect() { this.set(stats().pagesServed); } });
  const scraped = new Counter({ name: 'trawl_pages_scraped_total', help: 'Pages this worker scraped, by engine and outcome', labelNames: ['engine', 'outcome'], registers: [registry] });
  const seconds = new Histogram({
    name: 'trawl_page_scrape_seconds',
    help: 'Time from a page activity start to its Document (fetch and enrich), by engine',
    labelNames: ['engine'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  return {
    pages: {
      observe(engine, outcome, durationMs) {
        scraped.inc({ engine, outcome });
        if (outcome === 'completed') seconds.observe({ engine }, durationMs / 1000);
      },
    },
    async start(port, temporalMetricsPort) {
      const server = createServer((req, res) => {
        if (req.url !== '/metrics') return void res.writeHead(404).end();
        void (async () => {
          const ours = await registry.metrics();
          const temporal = temporalMetricsPort
            ? await fetch(`http://127.0.0.1:${temporalMetricsPort}/metrics`).then((r) => r.text(), () => '')
            : '';
          res.writeHead(200, { 'content-type': registry.contentType }).end(`${ours}\n${temporal}`);
        })().catch((err: unknown) => res.writeHead(500).end(String(err)));
      });
      server.listen(port, '0.0.0.0');
      await once(server, 'listening');
      return server;
    },
  };
}
