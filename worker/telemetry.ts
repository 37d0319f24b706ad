/**
 * The worker's telemetry: Temporal's runtime logs through the service's pino logger, with the
 * job and team of the activity on every line; and, with WORKER_METRICS_PORT, a /metrics of its
 * own: the browser pool's gauges, the pages it scraped, and the Temporal SDK's metrics (served by
 * the runtime's Prometheus exporter on a loopback port, appended to ours).
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { DefaultLogger, Runtime, type ActivityInterceptorsFactory, type LogLevel } from '@temporalio/worker';
import { defaultPayloadConverter } from '@temporalio/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PageMetrics } from '../activities/deps.js';
import type { BrowserPool, BrowserPoolStats } from '../browser/browser-pool.js';
import { JOB_CONTEXT_HEADER, type JobContext } from '../lib/job-context.js';
import type { Logger } from '../lib/log.js';
import { isZdrActivityInput, scrubZdrMeta } from '../lib/zero-data-retention-log.js';

const LEVELS: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', fatal: 'ERROR', silent: 'ERROR' };

/** Installs Temporal's runtime once, before any connection: its logger, and its metrics exporter when asked. */
export function installRuntime(log: Logger, level: string, temporalMetricsPort?: number): void {
  Runtime.install({
    logger: new DefaultLogger(LEVELS[level] ?? 'INFO', (entry) => {
      const method = entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      log[method]({ ...scrubZdrMeta(entry.meta) }, entry.message);
    }),
    ...(temporalMetricsPort && { telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${temporalMetricsPort}` } } } }),
  });
}

/**
 * Adds the job and team an activity works for to its log lines; Temporal adds the workflow id,
 * activity type and attempt. The workflow sends them in a header (workflows/job-context.ts).
 */
export const jobLogAttributes: ActivityInterceptorsFactory = () => {
  let job: JobContext | undefined;
  let zdr = false;
  return {
    inbound: {
      execute(input, next) {
        const header = input.headers[JOB_CONTEXT_HEADER];
        job = header && defaultPayloadConverter.fromPayload<JobContext>(header);
        zdr = isZdrActivityInput(input.args[0]);
        return next(input);
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        // A zero-data-retention page's lines are marked, so the logger scrubs their errors.
        return next({ ...input, ...job, ...(zdr && { zeroDataRetention: true }) });
      },
    },
  };
};

export interface WorkerMetrics {
  pages: PageMetrics;
  start(port: number, temporalMetricsPort?: number): Promise<Server>;
}

/** The pool's figures: gauges for what is in use now, counters for what has happened so far. */
const BROWSER_GAUGES: [string, keyof BrowserPoolStats, string][] = [
  ['trawl_browsers_open', 'browsersOpen', 'Browsers running now, retired ones finishing their last pages included'],
  ['trawl_browser_contexts_open', 'openPages', 'Browser pages in use now, each alone in its context'],
  ['trawl_browser_warm_pages', 'warmPages', 'Reset browser pages kept warm for the next page with the same options'],
  ['trawl_browser_pages_in_use', 'slotsInUse', 'Browser page slots taken now (BROWSER_PAGES_PER_WORKER is the most)'],
  ['trawl_browser_pages_waiting', 'slotsWaiting', 'Pages queued for a browser page slot now'],
];
const BROWSER_COUNTERS: [string, keyof BrowserPoolStats, string][] = [
  ['trawl_browser_launches_total', 'launches', 'Browsers launched: the first, then relaunches after a crash, retirement or idle close'],
  ['trawl_browser_crashes_total', 'crashes', 'Browsers that disconnected without being closed'],
  ['trawl_browser_pages_served_total', 'pagesServed', 'Browser pages handed out'],
  ['trawl_browser_pages_reused_total', 'pagesReused', 'Browser pages handed out warm: a reset page a previous call had used'],
];

export function createWorkerMetrics(browser: Pick<BrowserPool, 'stats'>): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'trawl_worker_' });
  for (const [name, field, help] of BROWSER_GAUGES) {
    new Gauge({ name, help, registers: [registry], collect() { this.set(browser.stats()[field]); } });
  }
  for (const [name, field, help] of BROWSER_COUNTERS) {
    // The pool keeps the totals; prom-client counters only move up, so each scrape restates them.
    new Counter({ name, help, registers: [registry], collect() { this.reset(); this.inc(browser.stats()[field]); } });
  }
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
          // A comment line (ignored by Prometheus) says why Temporal's series are missing, if they are.
          const temporal = temporalMetricsPort
            ? await fetch(`http://127.0.0.1:${temporalMetricsPort}/metrics`).then(
                (r) => r.text(),
                (err: unknown) => `# Temporal SDK metrics unavailable: ${String(err)}\n`,
              )
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
