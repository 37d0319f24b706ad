/**
 * The e2e stack runs the workflow bundle its global setup built, not one its worker made:
 * only that bundle carries short-heartbeats.ts, so a scrape's activity scheduled with the short
 * heartbeat timeout proves the worker loaded WORKFLOW_BUNDLE.
 */
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
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
  it("schedules a scrape's page with the test bundle's heartbeat timeout", async () => {
    const res = await api('/v2/scrape', { body: { url: `${site.origin}/`, maxAge: 0 } });
    expect(res.status).toBe(200);
    const history = await new Client({ connection }).workflow.getHandle(`scrape-${res.body.data.metadata.scrapeId}`).fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
    expect(scheduled.map((a) => a.activityType?.name)).toContain('scrapePage');
    for (const a of scheduled) expect(`${Number(a.heartbeatTimeout?.seconds)}s`).toBe(TEST_HEARTBEAT_TIMEOUT);
  });
});
