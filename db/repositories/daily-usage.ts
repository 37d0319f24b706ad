/** Credits and tokens per UTC day, per team and per key, from the ledgers themselves. */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

export interface DailyFigure {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** Null for charges made without a key (AUTH=none). */
  apiKeyId: string | null;
  value: number;
}

const dayOf = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`;
const since = (days: number) => sql<Date>`date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - make_interval(days => ${days - 1})`;

/** Credits charged per day and key over the last `days` days (today included); days without charges are absent. */
export async function listDailyCredits(db: Db, teamId: string, days: number): Promise<DailyFigure[]> {
  const rows = await db
    .selectFrom('credit_ledger')
    .select([dayOf('created_at').as('day'), 'api_key_id', sql<string>`sum(credits)`.as('n')])
    .where('team_id', '=', teamId)
    .where('created_at', '>=', since(days))
    .groupBy([sql`1`, 'api_key_id'])
    .orderBy(sql`1`)
    .execute();
  return rows.map((r) => ({ day: r.day, apiKeyId: r.api_key_id, value: Number(r.n) }));
}

/** Model tokens (prompt and completion) per day and key over the last `days` days. */
export async function listDailyTokens(db: Db, teamId: string, days: number): Promise<DailyFigure[]> {
  const rows = await db
    .selectFrom('token_ledger')
    .select([dayOf('created_at').as('day'), 'api_key_id', sql<string>`sum(input_tokens + output_tokens)`.as('n')])
    .where('team_id', '=', teamId)
    .where('created_at', '>=', since(days))
    .groupBy([sql`1`, 'api_key_id'])
    .orderBy(sql`1`)
    .execute();
  return rows.map((r) => ({ day: r.day, apiKeyId: r.api_key_id, value: Number(r.n) }));
}
