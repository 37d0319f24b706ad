/**
 * api/stored-scrapes.ts over db/listen.ts against a real Postgres: a waiting scrape learns of its
 * own job's notice only, and the listener comes back after its connection is killed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listenForStoredScrapes, type StoredScrapes } from '../../../api/stored-scrapes.js';
import { SCRAPE_STORED_CHANNEL } from '../../../db/repositories/documents.js';
import { createLogger } from '../../../lib/log.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let t: TestDb;
let storedScrapes: StoredScrapes;
beforeAll(async () => {
  t = await createTestDb('trawl_stored_scrapes');
  storedScrapes = listenForStoredScrapes(t.url, createLogger('silent'));
});
afterAll(async () => {
  await storedScrapes?.close();
  await t?.drop();
});

const notify = (jobId: string) => sql`select pg_notify(${SCRAPE_STORED_CHANNEL}, ${jobId})`.execute(t.db);

/** Whether `promise` settles within a short while. */
async function settles(promise: Promise<unknown>): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 300))]);
}

/** Notifies until the waiter hears it: the listener connects (or reconnects) in the background. */
async function expectHeard(jobId: string): Promise<void> {
  const waiter = storedScrapes.wait(jobId);
  try {
    await vi.waitFor(async () => {
      await notify(jobId);
      expect(await settles(waiter.stored)).toBe(true);
    }, { timeout: 10_000 });
  } finally {
    waiter.cancel();
  }
}

describe('stored scrapes', () => {
  it('resolves a wait on its own job’s notice only', async () => {
    await expectHeard(randomUUID());
    const mine = storedScrapes.wait(randomUUID());
    await notify(randomUUID());
    expect(await settles(mine.stored)).toBe(false);
    mine.cancel();
  });

  it('listens again after its connection is killed', async () => {
    await expectHeard(randomUUID());
    const { rows } = await sql<{ killed: boolean }>`
      select pg_terminate_backend(pid) as killed from pg_stat_activity
      where datname = current_database() and query ilike 'LISTEN%'`.execute(t.db);
    expect(rows).toEqual([{ killed: true }]);
    await expectHeard(randomUUID());
  });
});
