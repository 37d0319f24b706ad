/**
 * Per-team request counters in fixed windows, one minute unless configured longer
 * (RATE_LIMIT_WINDOW_SECONDS). Postgres keeps them, so every API process counts against the same
 * number; the window is read from the database clock for the same reason.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import { relaxedCommit } from '../relaxed-commit.js';

export interface WindowCount {
  /** Requests in this window, this one included. */
  count: number;
  /** When the window ends and the count starts again. */
  resetsAt: Date;
}

/** Windows are whole multiples of their length since this instant: whole minutes for a minute. */
const WINDOW_ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;

/**
 * Counts one request and returns the window's new total. The team's finished windows of this
 * endpoint are deleted by the same statement, so the table holds about one row per team and class.
 * A count lost in a database crash only lets a request more through: its commit is relaxed.
 * Every API process must count with the same `windowSeconds`.
 */
export async function countRequest(db: Db, teamId: string, endpoint: string, windowSeconds = 60): Promise<WindowCount> {
  const length = sql`make_interval(secs => ${windowSeconds})`;
  const { rows } = await sql<{ count: number; resets_at: Date }>`
    with finished as (
      delete from rate_limit_counters
      where team_id = ${teamId}::uuid and endpoint = ${endpoint} and window_start < date_bin(${length}, now(), ${WINDOW_ORIGIN})
    )
    insert into rate_limit_counters (team_id, endpoint, window_start, count)
    values (${teamId}::uuid, ${endpoint}, date_bin(${length}, now(), ${WINDOW_ORIGIN}), 1)
    on conflict (team_id, endpoint, window_start) do update set count = rate_limit_counters.count + 1
    returning count, window_start + ${length} as resets_at, ${relaxedCommit(db)}`.execute(db);
  const row = rows[0]!;
  return { count: row.count, resetsAt: row.resets_at };
}
