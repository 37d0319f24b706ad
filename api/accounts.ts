/**
 * Teams, keys and plans: what `npm run admin` and the dashboard both do, written once. Each
 * function validates its input with api/schemas/accounts.ts and throws AccountError with a
 * message meant for the person at the CLI or the form.
 */
import { insertApiKey, revokeApiKey } from '../db/repositories/api-keys.js';
import type { Db } from '../db/connect.js';
import { countActiveSlots } from '../db/repositories/concurrency-slots.js';
import { findTeamPlan, saveTeamPlan } from '../db/repositories/plans.js';
import { findOrCreateTeam } from '../db/repositories/teams.js';
import { readPeriodUsage, type PeriodUsage } from '../db/repositories/usage.js';
import { readThreatPolicy, saveThreatPolicy } from '../db/repositories/threat-policy.js';
import { setWebhookSecret } from '../db/repositories/webhook-secrets.js';
import { threatPolicySchema } from '../contracts/threat-policy.js';
import type { ThreatPolicy } from '../lib/threat/policy.js';
import type { Team, TeamPlanRow } from '../db/schema.js';
import { creditsLeft } from '../lib/credits.js';
import { billingPeriodEnd, ENDPOINT_CLASSES, planColumns, resolvePlan, type TeamPlan } from '../lib/plans.js';
import { generateApiKey, hashApiKey, keyPrefix } from './auth/api-keys.js';
import { firstIssue, planChangeSchema, scopesSchema, teamNameSchema } from './schemas/accounts.js';

export class AccountError extends Error {}

export async function createTeam(db: Db, name: unknown): Promise<Team> {
  const parsed = teamNameSchema.safeParse(name);
  if (!parsed.success) throw new AccountError(firstIssue(parsed.error));
  return findOrCreateTeam(db, parsed.data);
}

export interface CreatedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  id: string;
  prefix: string;
  scopes: string[] | null;
}

/** A new key for the team; `scopes` as `scrape,crawl` or a list, blank for every scope. */
export async function createKey(db: Db, teamId: string, scopes: unknown): Promise<CreatedKey> {
  const parsed = scopesSchema.safeParse(scopes);
  if (!parsed.success) throw new AccountError(firstIssue(parsed.error));
  const key = generateApiKey();
  const row = await insertApiKey(db, { teamId, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes: parsed.data });
  return { key, id: row.id, prefix: row.key_prefix, scopes: row.scopes };
}

/** Revokes a key by id or prefix (only the team's own, given `teamId`); throws when none matched. */
export async function revokeKey(db: Db, idOrPrefix: string, teamId?: string): Promise<number> {
  const n = await revokeApiKey(db, idOrPrefix, teamId);
  if (n === 0) throw new AccountError(`no active key matches ${idOrPrefix}`);
  return n;
}

/** Changes only the plan fields given (CLI flag names); the rest stay as they were. */
export async function changePlan(db: Db, teamId: string, change: unknown): Promise<TeamPlan> {
  const parsed = planChangeSchema.safeParse(change);
  if (!parsed.success) throw new AccountError(firstIssue(parsed.error, '--'));
  const c = parsed.data;
  const current = resolvePlan(await findTeamPlan(db, teamId));
  const rateLimits = { ...current.rateLimits };
  for (const endpoint of ENDPOINT_CLASSES) rateLimits[endpoint] = c[`${endpoint}-rpm`] ?? rateLimits[endpoint];
  const plan: TeamPlan = {
    monthlyCredits: c.credits ?? current.monthlyCredits,
    monthlyTokens: c.tokens ?? current.monthlyTokens,
    rateLimits,
    concurrency: c.concurrency ?? current.concurrency,
    zeroDataRetention: c.zdr ?? current.zeroDataRetention,
    threatProtection: c['threat-protection'] ?? current.threatProtection,
    monitors: c.monitors ?? current.monitors,
    agentConcurrency: c['agent-concurrency'] ?? current.agentConcurrency,
    unbilledFailedAgentPages: c['failed-agent-pages'] ?? current.unbilledFailedAgentPages,
  };
  await saveTeamPlan(db, { team_id: teamId, ...planColumns(plan) });
  if (c['webhook-secret'] !== undefined) {
    await setWebhookSecret(db, { id: teamId }, c['webhook-secret'] === '' ? null : c['webhook-secret']);
  }
  return plan;
}

export interface TeamStanding {
  plan: TeamPlan;
  /** Undefined when the defaults apply. */
  planRow: TeamPlanRow | undefined;
  usage: PeriodUsage;
  periodEnd: Date;
  creditsLeft: number;
  /** Concurrency slots held now. */
  activeSlots: number;
}

/** The team's plan in force, what it used this billing period and what is left. */
export async function readStanding(db: Db, teamId: string): Promise<TeamStanding> {
  const [planRow, usage, activeSlots] = await Promise.all([findTeamPlan(db, teamId), readPeriodUsage(db, teamId), countActiveSlots(db, teamId)]);
  const plan = resolvePlan(planRow);
  return { plan, planRow, usage, periodEnd: billingPeriodEnd(usage.periodStart), creditsLeft: creditsLeft(plan.monthlyCredits, usage.used), activeSlots };
}

/** Replaces the team's threat-protection policy with `json` (contracts/threat-policy.ts); returns it as stored. */
export async function replaceThreatPolicy(db: Db, teamId: string, json: string): Promise<ThreatPolicy> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new AccountError('the policy must be JSON');
  }
  const parsed = threatPolicySchema.safeParse(raw);
  if (!parsed.success) throw new AccountError(`invalid policy: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(policy)'}: ${i.message}`).join('; ')}`);
  await saveThreatPolicy(db, teamId, parsed.data);
  return readThreatPolicy(db, teamId);
}
