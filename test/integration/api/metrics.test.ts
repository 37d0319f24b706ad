/**
 * The API's /metrics (api/metrics.ts) on the real app over a real database, with Temporal faked
 * at the client: requests by route pattern, refusals, job starts, and the figures read from
 * Postgres when scraped.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix } from '../../../api/auth/api-keys.js';
import { insertApiKey } from '../../../db/repositories/api-keys.js';
import { saveTeamPlan } from '../../../db/repositories/plans.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { loadConfig } from '../../../lib/config.js';
import { DEFAULT_PLAN, planColumns } from '../../../lib/plans.js';
import { apiClient } from '../../helpers/api-client.js';
import { sample, typeOf } from '../../helpers/prometheus-text.js';
import { serveApp, type InProcessApp } from '../../helpers/in-process-app.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';
import { documentRow, newJob } from '../credits/fixture.js';

const TOKEN = 'unit-metrics-token-0123';
let testDb: TestDb;
let app: InProcessApp;
let base: string;
let teamId: string;
let api: ReturnType<typeof apiClient>;
const started: string[] = [];

beforeAll(async () => {
  testDb = await createTestDb('trawl_api_metrics');
  const team = await findOrCreateTeam(testDb.db, `metrics-${randomUUID()}`);
  teamId = team.id;
  await saveTeamPlan(testDb.db, { team_id: teamId, ...planColumns({ ...DEFAULT_PLAN, rateLimits: { ...DEFAULT_PLAN.rateLimits, 'crawl-status': 2 } }) });
  const key = generateApiKey();
  await insertApiKey(testDb.db, { teamId, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes: null });
  // Workflow starts succeed without a server, so a crawl is started as far as the API can tell.
  const temporal = {
    connection: { withDeadline: (_deadline: number, fn: () => unknown) => fn() },
    workflow: {
      start: async (_workflow: unknown, options: { workflowId: string }) => {
        started.push(options.workflowId);
        return { workflowId: options.workflowId };
      },
    },
  };
  app = await serveApp({
    db: testDb.db,
    config: loadConfig({ AUTH: 'keys', DATABASE_URL: testDb.url, METRICS_TOKEN: TOKEN, ALLOW_PRIVATE_NETWORK: 'true' }),
    temporal: temporal as never,
  });
  base = app.base;
  api = apiClient(base, key);
});

afterAll(async () => {
  await app?.close();
  await testDb.drop();
});

async function scrapeMetrics(): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

describe('API /metrics', () => {
  it('needs METRICS_TOKEN when it is set', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
    const refused = await fetch(`${base}/metrics`);
    expect(await refused.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('counts requests by route pattern and status, never by id, and refusals by code', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const statuses = [];
    for (const id of ids) statuses.push((await api(`/v2/crawl/${id}`)).status);
    // The plan allows 2 status reads a minute: two unknown jobs, then a refusal.
    expect(statuses).toEqual([404, 404, 429]);
    expect((await api('/v2/no-such-route')).status).toBe(404);

    const text = await scrapeMetrics();
    expect(sample(text, 'trawl_http_requests_total', { method: 'GET', route: '/v2/crawl/:id', status: '404' })).toBe(2);
    expect(sample(text, 'trawl_http_requests_total', { method: 'GET', route: '/v2/crawl/:id', status: '429' })).toBe(1);
    expect(sample(text, 'trawl_http_request_duration_seconds_count', { route: '/v2/crawl/:id', status: '404' })).toBe(2);
    expect(sample(text, 'trawl_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'trawl_refusals_total', { code: 'RATE_LIMITED', route: '/v2/crawl/:id' })).toBe(1);
    expect(typeOf(text, 'trawl_http_request_duration_seconds')).toBe('histogram');
    for (const id of ids) expect(text).not.toContain(id);
  });

  it('counts jobs as they start, and reads jobs, pages and credits from Postgres when scraped', async () => {
    const before = await scrapeMetrics();
    const res = await api('/v2/crawl', { body: { url: 'http://127.0.0.1:9/', limit: 5 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(started).toContain(`crawl-${res.body.id}`);

    const owner = { teamId, keyId: null };
    const failedJob = await newJob(testDb.db, owner, 'scrape');
    await testDb.db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', failedJob).execute();
    await testDb.db
      .insertInto('documents')
      .values([documentRow(failedJob, teamId, 'a'), { ...documentRow(failedJob, teamId, 'b'), status: 'failed', document: null }])
      .execute();
    // This period's usage counts; last year's does not.
    await testDb.db
      .insertInto('credit_usage')
      .values([
        { team_id: teamId, period_start: new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)), used: 7 },
        { team_id: teamId, period_start: new Date(Date.UTC(new Date().getUTCFullYear() - 1, 0, 1)), used: 1000 },
      ])
      .execute();

    const text = await scrapeMetrics();
    expect(sample(before, 'trawl_jobs_started_total', { kind: 'crawl' })).toBeUndefined();
    expect(sample(text, 'trawl_jobs_started_total', { kind: 'crawl' })).toBe(1);
    expect(sample(text, 'trawl_jobs_started_total', { kind: 'scrape' })).toBeUndefined();
    expect(sample(text, 'trawl_jobs', { kind: 'crawl', status: 'scraping' })).toBe(1);
    expect(sample(text, 'trawl_jobs', { kind: 'scrape', status: 'failed' })).toBe(1);
    expect(sample(text, 'trawl_pages_stored', { status: 'completed' })).toBe(1);
    expect(sample(text, 'trawl_pages_stored', { status: 'failed' })).toBe(1);
    expect(sample(text, 'trawl_credits_charged')).toBe(7);

    // A job that changes state moves its series on the next scrape, leaving no stale one behind.
    await testDb.db.updateTable('jobs').set({ status: 'cancelled' }).where('id', '=', res.body.id as string).execute();
    const after = await scrapeMetrics();
    expect(sample(after, 'trawl_jobs', { kind: 'crawl', status: 'scraping' })).toBeUndefined();
    expect(sample(after, 'trawl_jobs', { kind: 'crawl', status: 'cancelled' })).toBe(1);
  });
});
