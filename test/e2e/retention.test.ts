/**
 * Result retention on the real stack: the worker registered the purge Schedule, a run of it
 * purges expired jobs with their documents, and their ids then answer 404 JOB_EXPIRED.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/connect.js';
import { purgeScheduleId } from '../../lib/workflow-ids.js';
import { apiClient } from '../helpers/api-client.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey, databaseUrl, temporalAddress, taskQueue } = e2eContext();
const api = apiClient(apiUrl, apiKey);
let db: Db;
let connection: Connection;
let client: Client;
let site: FixtureSite;

beforeAll(async () => {
  db = createDb(databaseUrl, { maxConnections: 2 });
  connection = await Connection.connect({ address: temporalAddress });
  client = new Client({ connection });
  site = await startFixtureSite();
});

afterAll(async () => {
  await site?.close();
  await connection?.close();
  await db?.destroy();
});

describe('result retention', () => {
  it('runs on a Temporal Schedule the worker registered', async () => {
    const schedule = await client.schedule.getHandle(purgeScheduleId(taskQueue)).describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'purgeExpiredWorkflow', taskQueue });
    expect(schedule.spec.intervals?.[0]?.every).toBe(600_000);
  });

  it('purges an expired crawl with its documents; its id then answers JOB_EXPIRED', async () => {
    const started = await api('/v2/crawl', { body: { url: `${site.url}/`, limit: 2 } });
    expect(started.status).toBe(200);
    const id: string = started.body.id;
    await waitForJobEnd(api, 'crawl', id);
    const before = await api(`/v2/crawl/${id}`);
    expect(before.body.data.length).toBeGreaterThan(0);
    // Expire it now rather than in RESULT_RETENTION_HOURS.
    await db.updateTable('jobs').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', id).execute();

    const schedule = client.schedule.getHandle(purgeScheduleId(taskQueue));
    const runsBefore = (await schedule.describe()).info.numActionsTaken;
    await schedule.trigger();
    const jobRow = () => db.selectFrom('jobs').select('id').where('id', '=', id).executeTakeFirst();
    for (let i = 0; i < 300 && (await jobRow()) !== undefined; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await jobRow()).toBeUndefined();
    expect(await db.selectFrom('documents').select('id').where('job_id', '=', id).execute()).toEqual([]);
    expect((await schedule.describe()).info.numActionsTaken).toBeGreaterThan(runsBefore);

    for (const res of [await api(`/v2/crawl/${id}`), await api(`/v2/crawl/${id}`, { method: 'DELETE' })]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'JOB_EXPIRED' });
    }
    expect((await api(`/v2/crawl/${randomUUID()}`)).body.code).toBe('JOB_NOT_FOUND');
  });
});
