import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';

const POLL_MS = 10;

async function someoneWaitsOnALock(db: Db): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::integer as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
  return rows[0]!.n > 0;
}

/** Resolves once some session of `db`'s database waits for a lock. */
export async function waitForLockWait(db: Db): Promise<void> {
  while (!(await someoneWaitsOnALock(db))) await new Promise((r) => setTimeout(r, POLL_MS));
}

/**
 * Whether `work` ends before any session of `db`'s database waits on a lock. Call it while the
 * test holds the lock `work` must not wait for: the lock is held until work either ends or
 * waits, so the answer comes without a timer. `work` may still be pending afterwards.
 */
export async function endsOrWaitsOnLock(db: Db, work: Promise<unknown>): Promise<'ended' | 'waited on a lock'> {
  let waiting = true;
  const lockWait = (async () => {
    for (; waiting; await new Promise((r) => setTimeout(r, POLL_MS))) {
      if (await someoneWaitsOnALock(db)) return 'waited on a lock' as const;
    }
    return 'ended' as const;
  })();
  const ended = work.then(() => 'ended' as const);
  ended.catch(() => undefined);
  const first = await Promise.race([ended, lockWait]);
  waiting = false;
  await lockWait;
  return first;
}
