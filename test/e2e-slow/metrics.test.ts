/**
 * Operability on the real stack: the API's /metrics (requests by route, jobs, credits, refusals,
 * METRICS_TOKEN), the worker's /metrics on WORKER_METRICS_PORT (browser pool, pages by engine,
 * Temporal's SDK metrics), and job, workflow and team ids on the log lines about a job.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { awayFromWindowEdge, E2E_RATE_LIMIT_WINDOW_SECONDS } from '../helpers/rate-limit-window.js';
import { sample } from '../helpers/prometheus-text.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from '../e2e/context.js';

const { databaseUrl, temporalAddress } = e2eContext();
const TOKEN = 'metrics-token-0123456789';
const lines: string[] = [];
let stack: Stack;
let site: FixtureSite;
let workerPort: number;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  site = await startFixtureSite();
  workerPort = await findFreePort();
  stack = await startStack({
    databaseUrl,
    temporal: { address: temporalAddress },
    apiPort: await findFreePort(),
    env: {
      LOG_LEVEL: 'debug',
      TEMPORAL_TASK_QUEUE: 'trawl-metrics',
      ALLOW_PRIVATE_NETWORK: 'true',
      METRICS_TOKEN: TOKEN,
      WORKER_METRICS_PORT: String(workerPort),
      RATE_LIMIT_WINDOW_SECONDS: String(E2E_RATE_LIMIT_WINDOW_SECONDS),
    },
    log: (line) => {
      lines.push(line);
    },
  });
  const key = await createKeyWithCli(databaseUrl, 'metrics-team');
  await runAdmin(databaseUrl, ['teams', 'set', 'metrics-team', '--scrape-rpm', '3']);
  api = apiClient(stack.apiUrl, key);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await site?.close();
});

const metricsOf = async (url: string, token?: string) => {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, text: await res.text() };
};

describe('metrics', () => {
  let scrapeId: string;
  let crawlId: string;

  it('the API counts requests by route, jobs, credits and refusals, behind METRICS_TOKEN', async () => {
    // The fourth scrape is refused only if all four fall in one window.
    await awayFromWindowEdge(30);
    const first = await api('/v2/scrape', { body: { url: `${site.url}/article`, formats: ['markdown'], maxAge: 0 } });
    expect(first.status).toBe(200);
    scrapeId = first.body.data.metadata.scrapeId as string;
    expect((await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: ['markdown'], maxAge: 0 } })).status).toBe(200);
    // waitFor needs the browser, so the worker's pool has something to show.
    expect((await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: ['markdown'], maxAge: 0, waitFor: 50 } })).status).toBe(200);
    const refused = await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: ['markdown'], maxAge: 0 } });
    expect(refused.status).toBe(429);
    const crawl = await api('/v2/crawl', { body: { url: `${site.url}/article`, limit: 1 } });
    expect(crawl.status).toBe(200);
    crawlId = crawl.body.id as string;
    expect((await api(`/v2/crawl/${crawlId}`, { method: 'DELETE' })).status).toBe(200);

    expect((await metricsOf(`${stack.apiUrl}/metrics`)).status).toBe(401);
    const { status, text } = await metricsOf(`${stack.apiUrl}/metrics`, TOKEN);
    expect(status).toBe(200);
    expect(sample(text, 'trawl_http_requests_total', { method: 'POST', route: '/v2/scrape', status: '200' })).toBe(3);
    expect(sample(text, 'trawl_http_request_duration_seconds_count', { route: '/v2/scrape', status: '200' })).toBe(3);
    expect(sample(text, 'trawl_http_requests_total', { method: 'DELETE', route: '/v2/crawl/:id', status: '200' })).toBe(1);
    expect(sample(text, 'trawl_refusals_total', { code: 'RATE_LIMITED', route: '/v2/scrape' })).toBe(1);
    expect(sample(text, 'trawl_jobs_started_total', { kind: 'scrape' })).toBe(3);
    expect(sample(text, 'trawl_jobs_started_total', { kind: 'crawl' })).toBe(1);
    // The stack's database is shared with the other e2e files: at least this file's jobs.
    expect(sample(text, 'trawl_jobs', { kind: 'scrape', status: 'completed' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'trawl_jobs', { kind: 'crawl', status: 'cancelled' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'trawl_pages_stored', { status: 'completed' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'trawl_credits_charged')).toBeGreaterThanOrEqual(3);
  });

  it('the worker serves its own: browser pool, pages by engine, and Temporal SDK metrics', async () => {
    const { status, text } = await metricsOf(`http://127.0.0.1:${workerPort}/metrics`);
    expect(status).toBe(200);
    expect(sample(text, 'trawl_pages_scraped_total', { engine: 'http', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'trawl_page_scrape_seconds_count', { engine: 'http' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'trawl_pages_scraped_total', { engine: 'browser', outcome: 'completed' })).toBe(1);
    expect(sample(text, 'trawl_page_scrape_seconds_count', { engine: 'browser' })).toBe(1);
    expect(sample(text, 'trawl_browser_launches_total')).toBe(1);
    expect(sample(text, 'trawl_browser_pages_served_total')).toBe(1);
    expect(sample(text, 'trawl_browser_crashes_total')).toBe(0);
    expect(sample(text, 'trawl_browser_contexts_open')).toBe(0);
    // The page's slot is given back once its reset ends, which may follow the scrape's answer.
    await vi.waitFor(async () => {
      expect(sample((await metricsOf(`http://127.0.0.1:${workerPort}/metrics`)).text, 'trawl_browser_pages_in_use')).toBe(0);
    }, { timeout: 5_000 });
    // Temporal's own series: this worker's completed workflows and activities (a scrape's page is a
    // local activity, workflows/scrape.ts).
    expect(sample(text, 'temporal_workflow_completed', { workflow_type: 'scrapeWorkflow' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'temporal_local_activity_execution_latency_count', { activity_type: 'scrapePage' })).toBeGreaterThanOrEqual(3);
  });

  it('the log lines about a job carry its id, workflow id and team', async () => {
    const about = (jobId: string) => lines.filter((l) => l.includes(jobId) && l.includes('"teamId"'));
    const has = (jobId: string, prefix: string, ...parts: string[]) =>
      about(jobId).some((l) => l.startsWith(prefix) && [`"jobId":"${jobId}"`, ...parts].every((p) => l.includes(p)));
    expect(has(scrapeId, '[api', '"msg":"job: started"', `"workflowId":"scrape-${scrapeId}"`)).toBe(true);
    expect(has(scrapeId, '[worker', '"activityType":"scrapePage"', `"workflowId":"scrape-${scrapeId}"`)).toBe(true);
    expect(has(scrapeId, '[worker', '"msg":"Workflow completed"', `"workflowId":"scrape-${scrapeId}"`)).toBe(true);
    expect(has(crawlId, '[api', '"msg":"job: cancelled"', `"workflowId":"crawl-${crawlId}"`)).toBe(true);
    // Activities whose input names no team (finishing the job) carry it too; the cancelled crawl's
    // workflow finishes its job after the cancel has been answered.
    await vi.waitFor(
      () => expect(has(crawlId, '[worker', '"activityType":"finishJob"', `"workflowId":"crawl-${crawlId}"`), lines.filter((l) => l.includes(crawlId)).join('\n')).toBe(true),
      { timeout: 30_000 },
    );
  });
});
