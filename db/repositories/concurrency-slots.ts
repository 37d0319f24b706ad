/**
 * Team concurrency as leases on numbered slots. A team with limit N has slots 0..N-1; the
 * primary key (team, slot) makes a second live lease on a slot impossible, so no race between
 * workers can pass the limit. A lease names an expiry that its holder keeps pushing forward;
 * a lease whose worker died simply expires and its slot is taken over. Leases are short-lived by
 * design, so their writes commit relaxed (db/relaxed-commit.ts): one lost in a database crash is
 * the same as one whose worker died.
 */
import { sql, type QueryCreator } from 'kysely';
import type { Db } from '../connect.js';
import { relaxedCommit } from '../relaxed-commit.js';
import type { Database } from '../schema.js';

export interface SlotLease {
  teamId: string;
  slot: number;
  leaseId: string;
}

/** The slots taken together under one lease id (one page's, or a frontier slice lane's): renewed and released as one. */
export type SlotGroup = Pick<SlotLease, 'teamId' | 'leaseId'>;

/** One free slot, as acquireSlots; undefined when all `limit` are held. */
export async function acquireSlot(db: Db, teamId: string, limit: number, leaseId: string, ttlMs: number): Promise<SlotLease | undefined> {
  return (await acquireSlots(db, teamId, limit, 1, leaseId, ttlMs))[0];
}

/**
 * Takes up to `count` free slots (never leased, or leased but expired) for `ttlMs`, all under
 * `leaseId`; none when all `limit` slots are held. Free slots are picked at random so concurrent
 * callers seldom collide; a slot lost to a concurrent caller is simply not granted. The picked
 * slots are written in slot order: two batches that wrote theirs in random order could each hold
 * a slot the other waits for, and Postgres would fail one with a deadlock.
 */
export async function acquireSlots(
  db: Db,
  teamId: string,
  limit: number,
  count: number,
  leaseId: string,
  ttlMs: number,
): Promise<SlotLease[]> {
  if (limit < 1 || count < 1) return [];
  const { rows } = await sql<{ slot: number }>`
    with free as (
      select n from generate_series(0, ${limit - 1}::integer) as n
      where not exists (
        select 1 from concurrency_slots s
        where s.team_id = ${teamId}::uuid and s.slot = n and s.expires_at > now()
      )
      order by random()
      limit ${count}::integer
    )
    insert into concurrency_slots (team_id, slot, lease_id, expires_at)
    select ${teamId}::uuid, n, ${leaseId}::uuid, now() + make_interval(secs => ${ttlMs / 1000}) from free order by n
    on conflict (team_id, slot) do update
      set lease_id = excluded.lease_id, expires_at = excluded.expires_at
      where concurrency_slots.expires_at <= now()
    returning slot, ${relaxedCommit(db)}`.execute(db);
  return rows.map(({ slot }) => ({ teamId, slot, leaseId }));
}

/** Pushes the expiry of the group's slots forward; returns how many it still held (expired ones may be another's now). */
export async function renewSlots(db: Db, group: SlotGroup, ttlMs: number): Promise<number> {
  const renewed = await db
    .updateTable('concurrency_slots')
    .set({ expires_at: sql<Date>`now() + make_interval(secs => ${ttlMs / 1000})` })
    .where('team_id', '=', group.teamId)
    .where('lease_id', '=', group.leaseId)
    .returning(relaxedCommit(db).as('relaxed'))
    .execute();
  return renewed.length;
}

/** Frees every slot the group still holds. */
export async function releaseSlots(db: Db, group: SlotGroup): Promise<void> {
  await db
    .deleteFrom('concurrency_slots')
    .where('team_id', '=', group.teamId)
    .where('lease_id', '=', group.leaseId)
    .returning(relaxedCommit(db).as('relaxed'))
    .execute();
}

/** The delete that frees one slot, run as part of the transaction that stores its page's result. */
export function slotRelease(q: QueryCreator<Database>, lease: SlotLease) {
  return q
    .deleteFrom('concurrency_slots')
    .where('team_id', '=', lease.teamId)
    .where('slot', '=', lease.slot)
    .where('lease_id', '=', lease.leaseId);
}

/** Live leases: the pages of this team being fetched right now. */
export async function countActiveSlots(db: Db, teamId: string): Promise<number> {
  const { count } = await db
    .selectFrom('concurrency_slots')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('team_id', '=', teamId)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return count;
}
