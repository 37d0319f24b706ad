/**
 * The credit ledger: append-only charges, each unique by its charge key, plus the per-period
 * total kept beside it. Charges are written inside the transaction that stores what they pay for,
 * so a page is charged exactly when its document is stored: never twice, never without it.
 */
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../schema.js';

/** The billing period containing the transaction's time: the calendar month, in UTC. */
export const CURRENT_PERIOD = sql<string>`(date_trunc('month', now() at time zone 'UTC'))::date`;

export interface LedgerCharge {
  teamId: string;
  /** The job is also where the ledger finds the API key that started it. */
  jobId: string;
  /** Null for a charge that is not for a page (a search's results). */
  documentId: string | null;
  /** The same for every attempt at the same work, e.g. `page:<job id>:<url key>`. */
  chargeKey: string;
  reason: string;
  credits: number;
  /** The plan's credits for this period: the charge is refused if it would pass them. */
  periodCredits: number;
}

/** Thrown inside the storing transaction so the document is rolled back with the refused charge. */
export class CreditLimitReached extends Error {
  constructor(readonly charge: LedgerCharge) {
    super(`team ${charge.teamId} has fewer than ${charge.credits} credits left this period`);
    this.name = 'CreditLimitReached';
  }
}

/** The key of a page's charge: attempt-independent, so a retried activity finds the first charge. */
export function pageChargeKey(jobId: string, urlKey: string): string {
  return `page:${jobId}:${urlKey}`;
}

/**
 * Appends the charge unless its key is already in the ledger, and adds it to the period total
 * unless that would pass the plan (then throws CreditLimitReached, rolling back the caller's
 * transaction). The total's row lock orders concurrent charges of one team, so the check holds
 * across workers. Returns false when the charge was already recorded. Every page of a team
 * charges that one row, which stays locked from here to the caller's commit: callers make it
 * their transaction's last statement.
 */
export async function recordCharge(trx: Transaction<Database>, charge: LedgerCharge): Promise<boolean> {
  if (charge.credits <= 0) return false;
  const { rows } = await sql<{ appended: boolean; counted: boolean }>`
    with ${chargeCtes(charge)}
    select exists (select 1 from appended) as appended, exists (select 1 from total) as counted`.execute(trx);
  const { appended, counted } = rows[0]!;
  if (!appended) return false;
  if (!counted) throw new CreditLimitReached(charge);
  return true;
}

/**
 * The charge as the CTEs `appended` (its ledger row, none when its key is already there) and
 * `total` (the period total it raised, none when that would pass the plan), for a statement
 * that stores what it pays for; `when` limits it to a row that statement inserted.
 */
export function chargeCtes(charge: LedgerCharge, when: RawBuilder<boolean> = sql<boolean>`true`): RawBuilder<unknown> {
  return sql`
    appended as (
      insert into credit_ledger (team_id, api_key_id, job_id, document_id, charge_key, reason, credits)
      select ${charge.teamId}::uuid, (select api_key_id from jobs where id = ${charge.jobId}::uuid),
        ${charge.jobId}::uuid, ${charge.documentId}::uuid, ${charge.chargeKey}, ${charge.reason}, ${charge.credits}::integer
      where ${when}
      on conflict (charge_key) do nothing
      returning credits
    ), total as (
      insert into credit_usage (team_id, period_start, used)
      select ${charge.teamId}::uuid, ${CURRENT_PERIOD}, credits::bigint from appended
      where credits::bigint <= ${charge.periodCredits}::bigint
      on conflict (team_id, period_start) do update
        set used = credit_usage.used + excluded.used
        where credit_usage.used + excluded.used <= ${charge.periodCredits}::bigint
      returning used
    )`;
}

/**
 * True once chargeCtes' charge is made or was made before; a refused one raises
 * CREDIT_LIMIT_SQLSTATE instead, failing the whole statement, so that everything it stored goes
 * with the refusal in a single round trip (see creditLimitReachedIn).
 */
export const chargeMade = sql<boolean>`case when exists (select 1 from appended) and not exists (select 1 from total)
  then trawl_credit_limit_reached() else true end`;

/** What trawl_credit_limit_reached() raises (db/migrations/2026_11_29_000200_settle_in_one_statement.ts). */
export const CREDIT_LIMIT_SQLSTATE = 'TRW01';

/** The CreditLimitReached of `charge` when `err` is a statement's refusal of it, else `err`. */
export function creditLimitReachedIn(err: unknown, charge: LedgerCharge | undefined): unknown {
  return charge && (err as { code?: unknown })?.code === CREDIT_LIMIT_SQLSTATE ? new CreditLimitReached(charge) : err;
}
