/**
 * The e2e stack runs the workflow bundle its global setup built, not one its worker made:
 * only that bundle carries short-heartbeats.ts, so a crawl's activities scheduled with the short
 * heartbeat timeout prove the worker loaded WORKFLOW_BUNDLE. (A scrape's page is a local
 * activity, which has no heartbeat timeout: workflows/scrape.ts.)
 */
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';
import { TEST_HEARTBEAT_TIMEOUT } from './short-heartbeats.js';

const { apiUrl, apiKey, temporalAddress } = e2eContext();
const api = apiClient(apiUrl, apiKey);
let site: PageServer;
let connection: Connection;

beforeAll(async () => {
  site = await startPageServer({ '/': '<p>One page.</p>' });
  connection = await Connection.connect({ address: temporalAddress });
});
afterAll(async () => {
  await connection?.close();
  await site?.close();
});

describe('the e2e stack', () => {
  it("schedules a crawl's pages with the test bundle's heartbeat timeout", async () => {
    const res = await api('/v2/crawl', { body: { url: `${site.origin}/`, limit: 1, scrapeOptions: { maxAge: 0 } } });
    expect(res.status).toBe(200);
    expect((await waitForJobEnd(api, 'crawl', res.body.id as string)).status).toBe('completed');
    const history = await new Client({ connection }).workflow.getHandle(`crawl-${res.body.id}`).fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
    const heartbeating = scheduled.filter((a) => Number(a.heartbeatTimeout?.seconds ?? 0) > 0);
    expect(heartbeating.length).toBeGreaterThan(0);
    for (const a of heartbeating) expect(`${Number(a.heartbeatTimeout?.seconds)}s`).toBe(TEST_HEARTBEAT_TIMEOUT);
  });
});
