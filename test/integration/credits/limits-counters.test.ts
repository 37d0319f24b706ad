/**
 * The shared counters behind rate limits and team concurrency, against a real Postgres and hit
 * concurrently, as several API processes and workers would. Their writes commit relaxed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../db/connect.js';
import { relaxedCommit } from '../../../db/relaxed-commit.js';
import { acquireSlot, acquireSlots, countActiveSlots, releaseSlots, renewSlots, slotRelease } from '../../../db/repositories/concurrency-slots.js';
import { countRequest } from '../../../db/repositories/rate-limits.js';
import { ConfigError, loadConfig } from '../../../lib/config.js';
import { createTestDb, newTeam, type TestDb } from './fixture.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb('trawl_limits');
});
afterAll(async () => {
  await t?.drop();
});

describe('rate limit counters', () => {
  it('gives 40 concurrent requests the counts 1..40, per team and per endpoint class', async () => {
    const { teamId } = await newTeam(t.db);
    const counts = await Promise.all(Array.from({ length: 40 }, () => countRequest(t.db, teamId, 'scrape')));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await countRequest(t.db, teamId, 'crawl-status')).count).toBe(1);
    expect((await countRequest(t.db, (await newTeam(t.db)).teamId, 'scrape')).count).toBe(1);
    // The window ends at the next whole minute, at most a minute away.
    const msLeft = counts[0]!.resetsAt.getTime() - Date.now();
    expect(msLeft).toBeGreaterThan(0);
    expect(msLeft).toBeLessThanOrEqual(60_000);
    expect(counts[0]!.resetsAt.getUTCSeconds()).toBe(0);
  });

  it('counts in longer windows when configured, at whole multiples of their length, and never shorter than a minute', async () => {
    const { teamId } = await newTeam(t.db);
    const counts = await Promise.all(Array.from({ length: 5 }, () => countRequest(t.db, teamId, 'scrape', 3600)));
    expect(counts.map((c) => c.count).sort()).toEqual([1, 2, 3, 4, 5]);
    const resetsAt = counts[0]!.resetsAt;
    expect(resetsAt.getTime() - Date.now()).toBeGreaterThan(0);
    expect(resetsAt.getTime() - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect([resetsAt.getUTCMinutes(), resetsAt.getUTCSeconds()]).toEqual([0, 0]);

    expect(loadConfig({}).rateLimitWindowSeconds).toBe(60);
    expect(loadConfig({ RATE_LIMIT_WINDOW_SECONDS: '3600' }).rateLimitWindowSeconds).toBe(3600);
    // A shorter window would let a plan's per-minute number through more than once a minute.
    expect(() => loadConfig({ RATE_LIMIT_WINDOW_SECONDS: '30' })).toThrow(ConfigError);
  });

  it('starts a new window each minute and deletes the finished ones', async () => {
    const { teamId } = await newTeam(t.db);
    await t.db
      .insertInto('rate_limit_counters')
      .values({ team_id: teamId, endpoint: 'scrape', window_start: new Date(Date.now() - 5 * 60_000), count: 999 })
      .execute();
    expect((await countRequest(t.db, teamId, 'scrape')).count).toBe(1);
    const rows = await t.db.selectFrom('rate_limit_counters').select('count').where('team_id', '=', teamId).execute();
    expect(rows).toEqual([{ count: 1 }]);
  });
});

describe('concurrency slots', () => {
  it('grants exactly `limit` of 50 concurrent acquires, and a released slot goes to the next', async () => {
    const { teamId } = await newTeam(t.db);
    const leases = await Promise.all(Array.from({ length: 50 }, () => acquireSlot(t.db, teamId, 5, randomUUID(), 30_000)));
    const held = leases.filter((l) => l !== undefined);
    expect(held).toHaveLength(5);
    expect(new Set(held.map((l) => l.slot))).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(await countActiveSlots(t.db, teamId)).toBe(5);
    expect(await acquireSlot(t.db, teamId, 5, randomUUID(), 30_000)).toBeUndefined();

    await releaseSlots(t.db, held[0]!);
    expect(await countActiveSlots(t.db, teamId)).toBe(4);
    expect((await acquireSlot(t.db, teamId, 5, randomUUID(), 30_000))?.slot).toBe(held[0]!.slot);
  });

  it('never passes the limit while many holders acquire and release in a loop', async () => {
    const { teamId } = await newTeam(t.db);
    let holding = 0;
    let peak = 0;
    const worker = async () => {
      for (let done = 0; done < 5; ) {
        const lease = await acquireSlot(t.db, teamId, 3, randomUUID(), 30_000);
        if (!lease) continue;
        holding += 1;
        peak = Math.max(peak, holding);
        await new Promise((r) => setTimeout(r, 5));
        holding -= 1;
        await releaseSlots(t.db, lease);
        done += 1;
      }
    };
    await Promise.all(Array.from({ length: 12 }, worker));
    expect(peak).toBeLessThanOrEqual(3);
    expect(await countActiveSlots(t.db, teamId)).toBe(0);
  });

  it('lets an expired lease (a dead worker) be taken over, and its old holder can no longer renew it', async () => {
    const { teamId } = await newTeam(t.db);
    const dead = await acquireSlot(t.db, teamId, 1, randomUUID(), 50);
    expect(dead).toBeDefined();
    expect(await acquireSlot(t.db, teamId, 1, randomUUID(), 30_000)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 100));
    expect(await countActiveSlots(t.db, teamId)).toBe(0);
    const next = await acquireSlot(t.db, teamId, 1, randomUUID(), 30_000);
    expect(next?.slot).toBe(0);
    expect(await renewSlots(t.db, dead!, 30_000)).toBe(0);
    expect(await renewSlots(t.db, next!, 30_000)).toBe(1);
    // Releasing the dead lease must not free the slot its successor holds.
    await releaseSlots(t.db, dead!);
    expect(await countActiveSlots(t.db, teamId)).toBe(1);
  });

  it('grants nothing for a limit of 0', async () => {
    const { teamId } = await newTeam(t.db);
    expect(await acquireSlot(t.db, teamId, 0, randomUUID(), 30_000)).toBeUndefined();
  });

  it('grants a batch as many slots as are free, never passing the limit when batches acquire at once', async () => {
    const { teamId } = await newTeam(t.db);
    const single = await acquireSlot(t.db, teamId, 7, randomUUID(), 30_000);
    const batches = await Promise.all(Array.from({ length: 6 }, () => acquireSlots(t.db, teamId, 7, 5, randomUUID(), 30_000)));
    const granted = batches.flat();
    expect(granted.length).toBeLessThanOrEqual(6);
    expect(new Set([single!.slot, ...granted.map((l) => l.slot)]).size).toBe(granted.length + 1);
    expect(await countActiveSlots(t.db, teamId)).toBe(granted.length + 1);
    // Slots lost to a concurrent batch are free again for the next: the limit is reached, not passed.
    const rest = await acquireSlots(t.db, teamId, 7, 5, randomUUID(), 30_000);
    expect(granted.length + rest.length).toBe(6);
    expect(await acquireSlots(t.db, teamId, 7, 5, randomUUID(), 30_000)).toEqual([]);
  });

  it('never deadlocks batches that acquire overlapping slots at once', async () => {
    // Written in random slot order, about one round in five failed a batch with a deadlock.
    for (let round = 0; round < 60; round++) {
      const { teamId } = await newTeam(t.db);
      const batches = await Promise.all(Array.from({ length: 6 }, () => acquireSlots(t.db, teamId, 7, 5, randomUUID(), 30_000)));
      const slots = batches.flat().map((l) => l.slot);
      expect(new Set(slots).size).toBe(slots.length);
      expect(slots.length).toBeLessThanOrEqual(7);
    }
  });

  it('renews and releases a batch’s slots together, and a slot its page released stays free of the batch', async () => {
    const { teamId } = await newTeam(t.db);
    const group = { teamId, leaseId: randomUUID() };
    const leases = await acquireSlots(t.db, teamId, 10, 4, group.leaseId, 30_000);
    expect(leases).toHaveLength(4);
    await slotRelease(t.db, leases[0]!).execute();
    expect(await renewSlots(t.db, group, 30_000)).toBe(3);
    expect(await countActiveSlots(t.db, teamId)).toBe(3);
    await releaseSlots(t.db, group);
    expect(await countActiveSlots(t.db, teamId)).toBe(0);
  });

  it('lets a dead worker’s batch of slots expire together', async () => {
    const { teamId } = await newTeam(t.db);
    expect(await acquireSlots(t.db, teamId, 3, 3, randomUUID(), 50)).toHaveLength(3);
    expect(await acquireSlots(t.db, teamId, 3, 3, randomUUID(), 30_000)).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(await acquireSlots(t.db, teamId, 3, 3, randomUUID(), 30_000)).toHaveLength(3);
  });
});

describe('relaxed commits', () => {
  it('turn synchronous commit off for the statement that selects them', async () => {
    const { rows } = await sql<{ setting: string }>`
      with relaxed as (select ${relaxedCommit(t.db)}) select current_setting('synchronous_commit') as setting from relaxed`.execute(t.db);
    expect(rows).toEqual([{ setting: 'off' }]);
  });

  it('relax only their own statement: the connection commits normally afterwards', async () => {
    const single = createDb(t.url, { maxConnections: 1 });
    try {
      const { teamId } = await newTeam(single);
      await countRequest(single, teamId, 'scrape');
      const lease = await acquireSlot(single, teamId, 1, randomUUID(), 30_000);
      await renewSlots(single, lease!, 30_000);
      await releaseSlots(single, lease!);
      const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(single);
      expect(rows).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await single.destroy();
    }
  });

  it('are refused inside a transaction, where they would cover its other writes', async () => {
    const { teamId } = await newTeam(t.db);
    await expect(t.db.transaction().execute((trx) => countRequest(trx, teamId, 'scrape'))).rejects.toThrow(/transaction/);
  });
});
