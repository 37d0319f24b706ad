import { sql, type RawBuilder } from 'kysely';
import type { Db } from './connect.js';

/**
 * Selected by a single-statement write whose loss in a Postgres crash is harmless (a request
 * counter, a concurrency lease that expires anyway, a row that a later commit makes durable): it
 * sets synchronous_commit off for that statement's own transaction, so the commit does not wait
 * for its WAL to reach disk, which on a busy disk is most of a small write's latency. Other
 * sessions see the write at once as usual; a later normal commit flushes it with its own WAL.
 * Refused inside a transaction, where it would cover every write of it, a charge included.
 */
export function relaxedCommit(db: Db): RawBuilder<string> {
  if (db.isTransaction) throw new Error('relaxedCommit inside a transaction would cover all of it');
  return sql<string>`set_config('synchronous_commit', 'off', true)`;
}
