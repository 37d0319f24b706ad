/**
 * What a page activity checks and records about the team's credits: it refuses to start a page
 * when none are left, and builds the charge that is stored in the same transaction as the page's
 * document (db/repositories/ledger.ts). The charge itself re-checks the plan under a row lock, so
 * concurrent pages can never take a team past its credits.
 */
import type { Transaction } from 'kysely';
import { CreditLimitReached, pageChargeKey, recordCharge, type LedgerCharge } from '../../db/repositories/ledger.js';
import { readPeriodTokens } from '../../db/repositories/token-ledger.js';
import { readTeamStanding } from '../../db/repositories/usage.js';
import type { Db } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';
import { creditsLeft } from '../../lib/credits.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { resolvePlan, type TeamPlan } from '../../lib/plans.js';

export interface TeamBudget {
  plan: TeamPlan;
  remainingCredits: number;
}

/** The team's plan and credits left; throws INSUFFICIENT_CREDITS when there are none. */
export async function requireCredits(db: Db, teamId: string): Promise<TeamBudget> {
  const { planRow, usage } = await readTeamStanding(db, teamId);
  const plan = resolvePlan(planRow);
  const remainingCredits = creditsLeft(plan.monthlyCredits, usage.used);
  if (remainingCredits < 1) throw insufficientCredits();
  return { plan, remainingCredits };
}

/**
 * Refuses a model call when the team's model tokens for this billing period are spent. Every call
 * is checked, those of runs that will fail and so never be billed included: the quota is what
 * bounds the model work a team can make the shared workers do.
 */
export async function requireTokens(db: Db, teamId: string): Promise<void> {
  const { planRow, usage } = await readTeamStanding(db, teamId);
  const { monthlyTokens } = resolvePlan(planRow);
  const used = await readPeriodTokens(db, teamId, usage.periodStart);
  if (used >= monthlyTokens) {
    throw new NonRetryablePageError('INSUFFICIENT_CREDITS', `Payment Required: the team's model tokens for this month are used up (${used} of ${monthlyTokens})`);
  }
}

export function pageCharge(fields: {
  teamId: string;
  jobId: string;
  documentId: string;
  urlKey: string;
  credits: number;
  plan: TeamPlan;
}): LedgerCharge {
  return {
    teamId: fields.teamId,
    jobId: fields.jobId,
    documentId: fields.documentId,
    chargeKey: pageChargeKey(fields.jobId, fields.urlKey),
    reason: 'page',
    credits: fields.credits,
    periodCredits: fields.plan.monthlyCredits,
  };
}

/** A charge that is not a page's: a search's results, a map's threat scans, an agent step. */
export interface JobCharge {
  teamId: string;
  jobId: string;
  /** Attempt-independent, e.g. `search:<job id>`, so a retried activity charges once. */
  chargeKey: string;
  reason: string;
  credits: number;
}

/**
 * Records the charge and runs `work` (what the charge pays for) in one transaction, so neither is
 * stored without the other; a charge past the plan is INSUFFICIENT_CREDITS.
 */
export async function chargeWith(db: Db, plan: TeamPlan, charge: JobCharge, work: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      await recordCharge(trx, { ...charge, documentId: null, periodCredits: plan.monthlyCredits });
      await work(trx);
    });
  } catch (err) {
    throw withCreditCode(err);
  }
}

/** A refused charge becomes the wire error; anything else passes through unchanged. */
export function withCreditCode(err: unknown): unknown {
  return err instanceof CreditLimitReached ? insufficientCredits() : err;
}

function insufficientCredits(): NonRetryablePageError {
  // Not retried: another attempt would find the same empty balance.
  return new NonRetryablePageError('INSUFFICIENT_CREDITS', 'Payment Required: Insufficient credits');
}
