/**
 * Operability on the real stack: the API's /metrics (requests by route, jobs, credits, refusals,
 * METRICS_TOKEN), the worker's /metrics on WORKER_METRICS_PORT (browser pool, pages by engine,
 * Temporal's SDK metrics), and job, workflow and team ids on the log lines about a job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../scripts/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { databaseUrl, temporalAddress } = e2eContext();
const TOKEN = 'metrics-token-0123456789';
const lines: string[] = [];
let stack: Stack;
let site: FixtureSite;
let workerPort: number;
let api: ReturnType<typeof apiClient>;

/** The value of one sample line, `name{labels} value`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    if (Object.entries(labels).every(([k, v]) => rest.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

beforeAll(async () => {
  site = await startFixtureSite();
  workerPort = await findFreePort();
  stack = await startStack({
    databaseUrl,
    temporal: { address: temporalAddress },
    apiPort: await findFreePort(),
    env: { LOG_LEVEL: 'debug', TEMPORAL_TASK_QUEUE: 'trawl-metrics', ALLOW_PRIVATE_NETWORK: 'true', METRICS_TOKEN: TOKEN, WORKER_METRICS_PORT: String(workerPort) },
    log: (line) => {
      lines.push(line);
    },
  });
  const key = await createKeyWithCli(databaseUrl, 'metrics-team');
  await runAdmin(databaseUrl, ['teams', 'set', 'metrics-team', '--scrape-rpm', '2']);
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
  it('the API counts requests by route, jobs, credits and refusals, behind METRICS_TOKEN', async () => {
    const first = await api('/v2/scrape', { body: { url: `${site.url}/article`, formats: ['markdown'], maxAge: 0 } });
    expect(first.status).toBe(200);
    const jobId = first.body.data.metadata.scrapeId as string;
    await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: ['markdown'], maxAge: 0 } });
    const refused = await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: ['markdown'], maxAge: 0 } });
    expect(refused.status).toBe(429);

    expect((await metricsOf(`${stack.apiUrl}/metrics`)).status).toBe(401);
    const { status, text } = await metricsOf(`${stack.apiUrl}/metrics`, TOKEN);
    expect(status).toBe(200);
    expect(sample(text, 'trawl_http_requests_total', { method: 'POST', route: '/v2/scrape', status: '200' })).toBe(2);
    expect(sample(text, 'trawl_http_request_duration_seconds_count', { route: '/v2/scrape', status: '200' })).toBe(2);
    expect(sample(text, 'trawl_refusals_total', { code: 'RATE_LIMITED', route: '/v2/scrape' })).toBe(1);
    expect(sample(text, 'trawl_jobs', { kind: 'scrape', status: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'trawl_credits_charged')).toBeGreaterThanOrEqual(2);

    // The log lines about the job carry its ids: the API's, and the worker's activity lines.
    const about = lines.filter((l) => l.includes(jobId));
    expect(about.some((l) => l.includes('"msg":"job: started"') && l.includes(`"workflowId":"scrape-${jobId}"`) && l.includes('"teamId"'))).toBe(true);
    expect(about.some((l) => l.startsWith('[worker') && l.includes('"activityType":"scrapePage"') && l.includes(`"workflowId":"scrape-${jobId}"`) && l.includes('"teamId"'))).toBe(true);
  });

  it('the worker serves its own: browser pool, pages by engine, and Temporal SDK metrics', async () => {
    const { status, text } = await metricsOf(`http://127.0.0.1:${workerPort}/metrics`);
    expect(status).toBe(200);
    expect(sample(text, 'trawl_pages_scraped_total', { engine: 'http', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'trawl_page_scrape_seconds_count', { engine: 'http' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'trawl_browser_contexts_open')).toBe(0);
    expect(sample(text, 'trawl_browser_launches')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^temporal_\w+/m);
  });
});
