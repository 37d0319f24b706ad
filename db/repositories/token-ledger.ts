/**
 * The token ledger: every model call's prompt and completion tokens, per team and job. It is a
 * record of use, not a charge: credits for model features are charged with the page they enrich.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

export interface TokenEntry {
  teamId: string;
  /** Null for calls outside a job (a params preview). */
  jobId: string | null;
  feature: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export async function recordTokenUsage(db: Db, entry: TokenEntry): Promise<void> {
  if (entry.inputTokens + entry.outputTokens <= 0) return;
  await db
    .insertInto('token_ledger')
    .values({
      team_id: entry.teamId,
      api_key_id: entry.jobId ? sql<string | null>`(select api_key_id from jobs where id = ${entry.jobId}::uuid)` : null,
      job_id: entry.jobId,
      feature: entry.feature,
      model: entry.model,
      input_tokens: entry.inputTokens,
      output_tokens: entry.outputTokens,
    })
    .execute();
}

const MONTH = sql<Date>`date_trunc('month', created_at at time zone 'UTC') at time zone 'UTC'`;

/** Tokens the team used per billing period (calendar month, UTC), oldest first. */
export async function listTokenPeriods(db: Db, teamId: string): Promise<{ periodStart: Date; tokensUsed: number }[]> {
  const rows = await db
    .selectFrom('token_ledger')
    .select([MONTH.as('period_start'), sql<string>`sum(input_tokens + output_tokens)`.as('tokens')])
    .where('team_id', '=', teamId)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
  return rows.map((r) => ({ periodStart: r.period_start, tokensUsed: Number(r.tokens) }));
}

/** Tokens the team used in the period that starts at `periodStart`. */
export async function readPeriodTokens(db: Db, teamId: string, periodStart: Date): Promise<number> {
  const row = await db
    .selectFrom('token_ledger')
    .select(sql<string | null>`sum(input_tokens + output_tokens)`.as('tokens'))
    .where('team_id', '=', teamId)
    .where('created_at', '>=', periodStart)
    .executeTakeFirst();
  return Number(row?.tokens ?? 0);
}

/** Tokens a job's model calls used, for its status response. */
export async function readJobTokens(db: Db, jobId: string): Promise<number> {
  const row = await db
    .selectFrom('token_ledger')
    .select(sql<string | null>`sum(input_tokens + output_tokens)`.as('tokens'))
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return Number(row?.tokens ?? 0);
}
