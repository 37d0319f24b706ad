/**
 * Result retention: jobs past `expires_at` are purged with everything they own (documents,
 * frontier pages, media, robots records, by cascade), leaving a tombstone so that their id
 * answers 404 JOB_EXPIRED rather than "not found". Run by the purge Schedule (workflows/purge.ts).
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { JobKind } from '../schema.js';

/** Tombstones outlive their jobs by this long; after it an id is simply unknown. */
export const TOMBSTONE_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Purges up to `batch` expired jobs per transaction until none are left; resolves to how many.
 * Batches keep each transaction short, so a large backlog never holds locks for long.
 */
export async function purgeExpiredJobs(db: Db, batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const purged = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string }>`
        with expired as (
          select id, team_id, kind, expires_at from jobs
          where expires_at <= now()
          order by expires_at
          limit ${batch}
          for update skip locked
        ), tombstones as (
          insert into expired_jobs (id, team_id, kind, expired_at)
          select id, team_id, kind, expires_at from expired
          on conflict (id) do nothing
        )
        delete from jobs where id in (select id from expired) returning id`.execute(trx);
      return rows.length;
    });
    total += purged;
    if (purged < batch) return total;
  }
}

export async function deleteOldTombstones(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('expired_jobs')
    .where('purged_at', '<=', new Date(Date.now() - TOMBSTONE_RETENTION_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The team's job of that id (and kind, if given) that has expired, purged or not yet. */
export async function findExpiredJob(
  db: Db,
  teamId: string,
  jobId: string,
): Promise<{ kind: JobKind; expiredAt: Date } | undefined> {
  const tombstone = await db
    .selectFrom('expired_jobs')
    .select(['kind', 'expired_at'])
    .where('id', '=', jobId)
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  if (tombstone) return { kind: tombstone.kind, expiredAt: tombstone.expired_at };
  const live = await db
    .selectFrom('jobs')
    .select(['kind', 'expires_at'])
    .where('id', '=', jobId)
    .where('team_id', '=', teamId)
    .where('expires_at', '<=', new Date())
    .executeTakeFirst();
  return live && { kind: live.kind, expiredAt: live.expires_at };
}
