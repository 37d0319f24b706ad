/** The read side of credits and queues: what the usage endpoints, the pre-checks and the CLI report. */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { TeamPlanRow } from '../schema.js';
import { CURRENT_PERIOD } from './ledger.js';

export interface PeriodUsage {
  /** First instant of the current billing period (the calendar month, UTC). */
  periodStart: Date;
  /** Credits charged in it. */
  used: number;
}

const PERIOD_START = sql<Date>`(${CURRENT_PERIOD})::timestamp at time zone 'UTC'`;

const periodUsed = (teamId: string) =>
  sql<number>`coalesce((select used from credit_usage where team_id = ${teamId}::uuid and period_start = ${CURRENT_PERIOD}), 0)`;

/** Credits the team used in the current billing period, from the total kept with the ledger. */
export async function readPeriodUsage(db: Db, teamId: string): Promise<PeriodUsage> {
  const { rows } = await sql<{ period_start: Date; used: number }>`
    select ${PERIOD_START} as period_start, ${periodUsed(teamId)} as used`.execute(db);
  const row = rows[0]!;
  return { periodStart: row.period_start, used: Number(row.used) };
}

export interface TeamStandingRow {
  /** Undefined when the team has no stored plan: the defaults apply (lib/plans.ts). */
  planRow: TeamPlanRow | undefined;
  usage: PeriodUsage;
}

/** The team's stored plan and its usage this period, in one statement: requests and pages need both. */
export async function readTeamStanding(db: Db, teamId: string): Promise<TeamStandingRow> {
  // The left join yields one row either way; without a stored plan its columns are all null.
  const { rows } = await sql<TeamPlanRow & { period_start: Date; period_used: number }>`
    select p.*, ${PERIOD_START} as period_start, ${periodUsed(teamId)} as period_used
    from (select 1) as one left join team_plans p on p.team_id = ${teamId}::uuid`.execute(db);
  const { period_start, period_used, ...planRow } = rows[0]!;
  return {
    planRow: planRow.team_id === null ? undefined : planRow,
    usage: { periodStart: period_start, used: Number(period_used) },
  };
}

export interface CreditPeriod {
  periodStart: Date;
  /** Null when usage is not broken down by key, or for charges with no key (AUTH=none). */
  apiKeyId: string | null;
  keyPrefix: string | null;
  creditsUsed: number;
}

/** Credits charged per billing period, oldest first, summed from the ledger itself. */
export async function listCreditPeriods(db: Db, teamId: string, byApiKey: boolean): Promise<CreditPeriod[]> {
  const period = sql<Date>`date_trunc('month', l.created_at at time zone 'UTC') at time zone 'UTC'`;
  const query = db
    .selectFrom('credit_ledger as l')
    .select([period.as('period_start'), sql<number>`sum(l.credits)`.as('credits_used')])
    .where('l.team_id', '=', teamId)
    .groupBy(sql`1`)
    .orderBy(sql`1`);
  if (byApiKey) {
    const rows = await query
      .leftJoin('api_keys as k', 'k.id', 'l.api_key_id')
      .select(['l.api_key_id', 'k.key_prefix'])
      .groupBy(['l.api_key_id', 'k.key_prefix'])
      .orderBy('k.key_prefix')
      .execute();
    return rows.map((r) => ({
      periodStart: r.period_start,
      apiKeyId: r.api_key_id,
      keyPrefix: r.key_prefix,
      creditsUsed: Number(r.credits_used),
    }));
  }
  const rows = await query.execute();
  return rows.map((r) => ({
    periodStart: r.period_start,
    apiKeyId: null,
    keyPrefix: null,
    creditsUsed: Number(r.credits_used),
  }));
}

export interface QueueCounts {
  /** Pages of the team's running jobs not finished yet: queued, or claimed and in flight. */
  openPages: number;
  /** When the team last had a page charged, within the past 24 hours. */
  mostRecentSuccess: Date | null;
}

export async function readQueueCounts(db: Db, teamId: string): Promise<QueueCounts> {
  const { rows } = await sql<{ open_pages: number; most_recent: Date | null }>`
    select
      (select count(*) from crawl_pages p join jobs j on j.id = p.job_id
        where j.team_id = ${teamId}::uuid and j.status = 'scraping' and p.status in ('queued', 'scraping'))
      + (select count(*) from jobs where team_id = ${teamId}::uuid and kind = 'scrape' and status = 'scraping')
        as open_pages,
      (select max(created_at) from credit_ledger
        where team_id = ${teamId}::uuid and created_at > now() - interval '24 hours') as most_recent`.execute(db);
  const row = rows[0]!;
  return { openPages: Number(row.open_pages), mostRecentSuccess: row.most_recent };
}
