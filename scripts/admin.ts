/**
 * Entry: `npm run admin -- <command>`.
 *   keys create --team NAME [--scopes scrape,crawl,...]   prints the new key alone on the last line
 *   keys list [--team NAME]
 *   keys revoke <key id | key prefix>
 *   teams set NAME [--credits N] [--scrape-rpm N] ... [--concurrency N] [--zdr true|false] ...
 *   teams show NAME
 *   threat-protection set TEAM --policy '<json>'   replaces the team's policy (contracts/threat-policy.ts)
 *   threat-protection show TEAM                    prints it as JSON
 */
import { parseArgs } from 'node:util';
import { generateApiKey, hashApiKey, keyPrefix, SCOPES } from '../api/auth/api-keys.js';
import { createDb, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrator.js';
import { insertApiKey, listApiKeys, revokeApiKey } from '../db/repositories/api-keys.js';
import { countActiveSlots } from '../db/repositories/concurrency-slots.js';
import { findTeamPlan, saveTeamPlan } from '../db/repositories/plans.js';
import { findOrCreateTeam, findTeamByName } from '../db/repositories/teams.js';
import { readPeriodUsage } from '../db/repositories/usage.js';
import { readThreatPolicy, saveThreatPolicy } from '../db/repositories/threat-policy.js';
import { setWebhookSecret } from '../db/repositories/webhook-secrets.js';
import { threatPolicySchema } from '../contracts/threat-policy.js';
import { loadConfig } from '../lib/config.js';
import { creditsLeft } from '../lib/credits.js';
import {
  billingPeriodEnd,
  ENDPOINT_CLASSES,
  MAX_PLAN_CONCURRENCY,
  planColumns,
  resolvePlan,
  type EndpointClass,
  type TeamPlan,
} from '../lib/plans.js';

const USAGE = `usage:
  npm run admin -- keys create --team NAME [--scopes ${SCOPES.join(',')}]
  npm run admin -- keys list [--team NAME]
  npm run admin -- keys revoke <key id | key prefix>
  npm run admin -- teams set NAME [--credits N] [--tokens N] [--concurrency N]
      [${ENDPOINT_CLASSES.map((c) => `--${c}-rpm N`).join('] [')}]
      [--zdr true|false] [--threat-protection true|false] [--webhook-secret S]
  npm run admin -- teams show NAME
  npm run admin -- threat-protection set TEAM --policy '{"enabled":true,"mode":"normal",...}'
  npm run admin -- threat-protection show TEAM`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { team: { type: 'string' }, scopes: { type: 'string' }, policy: { type: 'string' }, ...PLAN_OPTIONS },
  });
  const [group, command, arg] = positionals;
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { maxConnections: 2 });
  try {
    // The CLI may run before the service ever started; the schema must exist for it.
    const { error } = await migrateToLatest(db);
    if (error) throw error;
    if (group === 'teams') {
      if (command === 'set') return await setTeam(db, arg, values);
      if (command === 'show') return await showTeam(db, arg);
      throw new UsageError(USAGE);
    }
    if (group === 'threat-protection') {
      if (command === 'set') return await setThreatPolicy(db, arg, values.policy);
      if (command === 'show') return await showThreatPolicy(db, arg);
      throw new UsageError(USAGE);
    }
    if (group !== 'keys') throw new UsageError(USAGE);
    switch (command) {
      case 'create':
        return await createKey(db, values.team, values.scopes);
      case 'list':
        return await listKeys(db, values.team);
      case 'revoke':
        return await revokeKey(db, arg);
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await db.destroy();
  }
}

async function setThreatPolicy(db: Db, team: string | undefined, json: string | undefined): Promise<void> {
  if (!team || !json) throw new UsageError(USAGE);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new UsageError('--policy must be JSON');
  }
  const parsed = threatPolicySchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`invalid policy: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(policy)'}: ${i.message}`).join('; ')}`);
  const teamRow = await findOrCreateTeam(db, team);
  await saveThreatPolicy(db, teamRow.id, parsed.data);
  console.log(JSON.stringify(await readThreatPolicy(db, teamRow.id), null, 2));
}

async function showThreatPolicy(db: Db, team: string | undefined): Promise<void> {
  if (!team) throw new UsageError(USAGE);
  const teamRow = await findTeamByName(db, team);
  if (!teamRow) throw new UsageError(`no team named ${team}`);
  console.log(JSON.stringify(await readThreatPolicy(db, teamRow.id), null, 2));
}

async function createKey(db: Db, team: string | undefined, scopesArg: string | undefined): Promise<void> {
  if (!team) throw new UsageError('keys create needs --team NAME');
  const scopes = scopesArg ? scopesArg.split(',').map((s) => s.trim()).filter(Boolean) : null;
  const unknown = scopes?.filter((s) => !(SCOPES as readonly string[]).includes(s)) ?? [];
  if (unknown.length) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  const teamRow = await findOrCreateTeam(db, team);
  const key = generateApiKey();
  await insertApiKey(db, { teamId: teamRow.id, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes });
  console.error(`Created an API key for team "${team}"${scopes ? ` limited to ${scopes.join(', ')}` : ''}.`);
  console.error('It is shown only once; Trawl stores only its hash. Use it as: Authorization: Bearer <key>');
  console.log(key);
}

async function listKeys(db: Db, team: string | undefined): Promise<void> {
  const rows = await listApiKeys(db, team);
  for (const r of rows) {
    const state = r.revoked_at ? `revoked ${r.revoked_at.toISOString()}` : 'active';
    const scopes = r.scopes ? r.scopes.join(',') : 'all';
    console.log(`${r.id}  ${r.key_prefix}…  team=${r.team}  scopes=${scopes}  ${state}`);
  }
  if (rows.length === 0) console.log('no keys');
}

async function revokeKey(db: Db, idOrPrefix: string | undefined): Promise<void> {
  if (!idOrPrefix) throw new UsageError('keys revoke needs a key id or prefix');
  const n = await revokeApiKey(db, idOrPrefix);
  if (n === 0) throw new UsageError(`no active key matches ${idOrPrefix}`);
  console.log(`revoked ${n} key(s)`);
}

const PLAN_OPTIONS = {
  credits: { type: 'string' },
  tokens: { type: 'string' },
  concurrency: { type: 'string' },
  ...Object.fromEntries(ENDPOINT_CLASSES.map((c) => [`${c}-rpm`, { type: 'string' }])),
  zdr: { type: 'string' },
  'threat-protection': { type: 'string' },
  'webhook-secret': { type: 'string' },
} as const satisfies Record<string, { type: 'string' }>;

type PlanFlags = Partial<Record<string, string | boolean | undefined>>;

/** Creates the team if needed and changes only the plan fields given; the rest stay as they were. */
async function setTeam(db: Db, name: string | undefined, flags: PlanFlags): Promise<void> {
  if (!name) throw new UsageError('teams set needs a team NAME');
  const team = await findOrCreateTeam(db, name);
  const current = resolvePlan(await findTeamPlan(db, team.id));
  const rateLimits = { ...current.rateLimits };
  for (const endpoint of ENDPOINT_CLASSES) {
    rateLimits[endpoint] = count(flags, `${endpoint}-rpm`, 0) ?? rateLimits[endpoint];
  }
  const plan: TeamPlan = {
    monthlyCredits: count(flags, 'credits', 0) ?? current.monthlyCredits,
    monthlyTokens: count(flags, 'tokens', 0) ?? current.monthlyTokens,
    rateLimits,
    concurrency: count(flags, 'concurrency', 1, MAX_PLAN_CONCURRENCY) ?? current.concurrency,
    zeroDataRetention: flag(flags, 'zdr') ?? current.zeroDataRetention,
    threatProtection: flag(flags, 'threat-protection') ?? current.threatProtection,
  };
  await saveTeamPlan(db, { team_id: team.id, ...planColumns(plan) });
  const secret = flags['webhook-secret'];
  if (typeof secret === 'string') await setWebhookSecret(db, { id: team.id }, secret === '' ? null : secret);
  console.error(`Saved the plan of team "${name}".`);
  await showTeam(db, name);
}

async function showTeam(db: Db, name: string | undefined): Promise<void> {
  if (!name) throw new UsageError('teams show needs a team NAME');
  const team = await findTeamByName(db, name);
  if (!team) throw new UsageError(`no team named ${name}`);
  const [row, usage, active] = await Promise.all([
    findTeamPlan(db, team.id),
    readPeriodUsage(db, team.id),
    countActiveSlots(db, team.id),
  ]);
  const plan = resolvePlan(row);
  const period = `${day(usage.periodStart)} to ${day(billingPeriodEnd(usage.periodStart))}`;
  const left = creditsLeft(plan.monthlyCredits, usage.used);
  const lines: [string, string][] = [
    ['team', `${team.name} (${team.id})`],
    ['plan', row ? `stored, updated ${row.updated_at.toISOString()}` : 'defaults (no plan stored)'],
    ['credits', `${plan.monthlyCredits} per month; ${usage.used} used from ${period}, ${left} left`],
    ['tokens', `${plan.monthlyTokens} per month`],
    ['rate limits', ENDPOINT_CLASSES.map((c: EndpointClass) => `${c} ${plan.rateLimits[c]}/min`).join(', ')],
    ['concurrency', `${plan.concurrency} pages at once (${active} in use)`],
    ['zdr', String(plan.zeroDataRetention)],
    ['threat protection', String(plan.threatProtection)],
    ['webhook secret', team.webhook_secret ? 'set' : 'not set (webhooks unsigned)'],
  ];
  for (const [label, value] of lines) console.log(`${label.padEnd(18)}${value}`);
}

function count(flags: PlanFlags, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

function flag(flags: PlanFlags, name: string): boolean | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new UsageError(`--${name} must be true or false`);
}

function day(at: Date): string {
  return at.toISOString().slice(0, 10);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exit(err instanceof UsageError ? 2 : 1);
});
