/** Requests refused for a team's limits, counted per UTC day: the dashboard's "refusals". */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

export async function recordRefusals(db: Db, teamId: string, code: string, count: number): Promise<void> {
  await db
    .insertInto('team_refusals')
    .values({ team_id: teamId, day: sql<string>`(now() at time zone 'UTC')::date`, code, count })
    .onConflict((oc) => oc.columns(['team_id', 'day', 'code']).doUpdateSet({ count: sql`team_refusals.count + ${count}` }))
    .execute();
}

export interface RefusalTotal {
  code: string;
  count: number;
}

/** Refusals of the last `days` days (today included), per code. */
export async function listRefusalTotals(db: Db, teamId: string, days: number): Promise<RefusalTotal[]> {
  const rows = await db
    .selectFrom('team_refusals')
    .select(['code', sql<string>`sum(count)`.as('n')])
    .where('team_id', '=', teamId)
    .where('day', '>', sql<Date>`(now() at time zone 'UTC')::date - ${days}::int`)
    .groupBy('code')
    .orderBy('code')
    .execute();
  return rows.map((r) => ({ code: r.code, count: Number(r.n) }));
}
