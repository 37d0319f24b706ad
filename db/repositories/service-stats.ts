/** Whole-service figures: the metrics gauges and the health check read Postgres through here. */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

/** Answers when Postgres does; throws when it does not. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export async function countJobsByKindAndStatus(db: Db): Promise<{ kind: string; status: string; n: number }[]> {
  const rows = await db.selectFrom('jobs').select(['kind', 'status', sql<string>`count(*)`.as('n')]).groupBy(['kind', 'status']).execute();
  return rows.map((r) => ({ kind: r.kind, status: r.status, n: Number(r.n) }));
}

/** Credits charged over all teams in the current billing period (a calendar month, UTC). */
export async function creditsChargedThisPeriod(db: Db): Promise<number> {
  const row = await db
    .selectFrom('credit_usage')
    .select(sql<string | null>`sum(used)`.as('n'))
    .where('period_start', '=', sql<Date>`date_trunc('month', now() at time zone 'UTC')::date`)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function countDocumentsByStatus(db: Db): Promise<{ status: string; n: number }[]> {
  const rows = await db.selectFrom('documents').select(['status', sql<string>`count(*)`.as('n')]).groupBy('status').execute();
  return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
}
