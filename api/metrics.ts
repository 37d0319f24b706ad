/**
 * The API's Prometheus metrics (`GET /metrics`, prom-client). Request figures are counted in this
 * process; job, credit and refusal totals that several processes share are read from Postgres
 * when scraped, so any API process answers for the whole service.
 */
import type { RequestHandler, Router } from 'express';
import { Router as createRouter } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/connect.js';
import { recordRefusals } from '../db/repositories/refusals.js';
import { countDocumentsByStatus, countJobsByKindAndStatus, creditsChargedThisPeriod } from '../db/repositories/service-stats.js';
import { coalescedWrites } from '../lib/coalesced-writes.js';
import type { JobKind } from '../db/schema.js';
import { httpError } from './errors.js';

export interface ApiMetrics {
  registry: Registry;
  /** Times and counts every request by its route pattern (not its URL: ids would explode the series). */
  middleware: RequestHandler;
  /** Counts a job whose workflow started (api/job-start.ts); a counter, so rates survive the purge of old rows. */
  jobStarted(kind: JobKind): void;
}

/** Codes of the answers that refuse work for a team's limits. */
const REFUSALS = new Set(['RATE_LIMITED', 'CONCURRENCY_LIMITED', 'INSUFFICIENT_CREDITS']);

export function createApiMetrics(db: Db): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'trawl_api_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'trawl_http_requests_total', help: 'HTTP requests by route pattern and status', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'trawl_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'trawl_refusals_total',
    help: 'Requests refused for a team limit, by code (RATE_LIMITED, CONCURRENCY_LIMITED, INSUFFICIENT_CREDITS)',
    labelNames: ['code', 'route'],
    registers: [registry],
  });
  const started = new Counter({ name: 'trawl_jobs_started_total', help: 'Jobs this API process started, by kind', labelNames: ['kind'], registers: [registry] });
  new Gauge({
    name: 'trawl_jobs',
    help: 'Jobs in Postgres by kind and status (scraping = running); every job ever started until retention purges it',
    labelNames: ['kind', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await countJobsByKindAndStatus(db)) this.set({ kind: r.kind, status: r.status }, r.n);
    },
  });
  new Gauge({
    name: 'trawl_credits_charged',
    help: 'Credits charged in the current billing period, over all teams',
    registers: [registry],
    async collect() {
      this.set(await creditsChargedThisPeriod(db));
    },
  });
  new Gauge({
    name: 'trawl_pages_stored',
    help: 'Documents in Postgres by outcome (completed or failed), until retention purges them',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await countDocumentsByStatus(db)) this.set({ status: r.status }, r.n);
    },
  });

  // Per team too, for the dashboard; a flood of 429s folds into a few upserts.
  const countRefusal = coalescedWrites((key, count) => {
    const [teamId, code] = key.split('\u0000') as [string, string];
    return recordRefusals(db, teamId, code, count);
  });

  const middleware: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = req.route ? `${req.baseUrl}${String((req.route as { path: string }).path)}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      const code = res.locals.errorCode as string | undefined;
      if (code && REFUSALS.has(code)) {
        refusals.inc({ code, route });
        const teamId = (res.locals.auth as { teamId?: string } | undefined)?.teamId;
        if (teamId) countRefusal(`${teamId}\u0000${code}`);
      }
    });
    next();
  };
  return { registry, middleware, jobStarted: (kind) => started.inc({ kind }) };
}

/**
 * GET /metrics. Open like /health unless METRICS_TOKEN is set; then it needs that bearer token
 * (not an API key: scrapers are not teams).
 */
export function metricsRoutes(metrics: ApiMetrics, token: string | undefined): Router {
  const router = createRouter();
  router.get('/metrics', async (req, res) => {
    if (token && req.get('authorization') !== `Bearer ${token}`) throw httpError('UNAUTHORIZED', 'Unauthorized: /metrics needs METRICS_TOKEN as a bearer token');
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
