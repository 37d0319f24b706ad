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
import { AccountError, changePlan, createKey, createTeam, readStanding, replaceThreatPolicy, revokeKey } from '../api/accounts.js';
import { describeScopes, SCOPES } from '../api/auth/api-keys.js';
import { createDb, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrator.js';
import { listApiKeys } from '../db/repositories/api-keys.js';
import { findTeamByName } from '../db/repositories/teams.js';
import { readThreatPolicy } from '../db/repositories/threat-policy.js';
import { loadConfig } from '../lib/config.js';
import { ENDPOINT_CLASSES, type EndpointClass } from '../lib/plans.js';

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
        return await createKeyCommand(db, values.team, values.scopes);
      case 'list':
        return await listKeys(db, values.team);
      case 'revoke':
        return await revokeKeyCommand(db, arg);
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await db.destroy();
  }
}

async function setThreatPolicy(db: Db, team: string | undefined, json: string | undefined): Promise<void> {
  if (!team || !json) throw new UsageError(USAGE);
  const teamRow = await createTeam(db, team);
  try {
    console.log(JSON.stringify(await replaceThreatPolicy(db, teamRow.id, json), null, 2));
  } catch (err) {
    // The CLI's own wording for the flag.
    if (err instanceof AccountError && err.message === 'the policy must be JSON') throw new UsageError('--policy must be JSON');
    throw err;
  }
}

async function showThreatPolicy(db: Db, team: string | undefined): Promise<void> {
  if (!team) throw new UsageError(USAGE);
  const teamRow = await findTeamByName(db, team);
  if (!teamRow) throw new UsageError(`no team named ${team}`);
  console.log(JSON.stringify(await readThreatPolicy(db, teamRow.id), null, 2));
}

async function createKeyCommand(db: Db, team: string | undefined, scopes: string | undefined): Promise<void> {
  if (!team) throw new UsageError('keys create needs --team NAME');
  const teamRow = await createTeam(db, team);
  const created = await createKey(db, teamRow.id, scopes);
  console.error(`Created an API key for team "${teamRow.name}"${created.scopes ? ` limited to ${created.scopes.join(', ')}` : ''}.`);
  console.error('It is shown only once; Trawl stores only its hash. Use it as: Authorization: Bearer <key>');
  console.log(created.key);
}

async function listKeys(db: Db, team: string | undefined): Promise<void> {
  const rows = await listApiKeys(db, team);
  for (const r of rows) {
    const state = r.revoked_at ? `revoked ${r.revoked_at.toISOString()}` : 'active';
    const scopes = describeScopes(r.scopes);
    console.log(`${r.id}  ${r.key_prefix}…  team=${r.team}  scopes=${scopes}  ${state}`);
  }
  if (rows.length === 0) console.log('no keys');
}

async function revokeKeyCommand(db: Db, idOrPrefix: string | undefined): Promise<void> {
  if (!idOrPrefix) throw new UsageError('keys revoke needs a key id or prefix');
  console.log(`revoked ${await revokeKey(db, idOrPrefix)} key(s)`);
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
  const team = await createTeam(db, name);
  await changePlan(db, team.id, flags);
  console.error(`Saved the plan of team "${name}".`);
  await showTeam(db, name);
}

async function showTeam(db: Db, name: string | undefined): Promise<void> {
  if (!name) throw new UsageError('teams show needs a team NAME');
  const team = await findTeamByName(db, name);
  if (!team) throw new UsageError(`no team named ${name}`);
  const { plan, planRow, usage, periodEnd, creditsLeft, activeSlots } = await readStanding(db, team.id);
  const period = `${day(usage.periodStart)} to ${day(periodEnd)}`;
  const lines: [string, string][] = [
    ['team', `${team.name} (${team.id})`],
    ['plan', planRow ? `stored, updated ${planRow.updated_at.toISOString()}` : 'defaults (no plan stored)'],
    ['credits', `${plan.monthlyCredits} per month; ${usage.used} used from ${period}, ${creditsLeft} left`],
    ['tokens', `${plan.monthlyTokens} per month`],
    ['rate limits', ENDPOINT_CLASSES.map((c: EndpointClass) => `${c} ${plan.rateLimits[c]}/min`).join(', ')],
    ['concurrency', `${plan.concurrency} pages at once (${activeSlots} in use)`],
    ['zdr', String(plan.zeroDataRetention)],
    ['threat protection', String(plan.threatProtection)],
    ['webhook secret', team.webhook_secret ? 'set' : 'not set (webhooks unsigned)'],
  ];
  for (const [label, value] of lines) console.log(`${label.padEnd(18)}${value}`);
}

function day(at: Date): string {
  return at.toISOString().slice(0, 10);
}

main(process.argv.slice(2)).catch((err) => {
  const usage = err instanceof UsageError || err instanceof AccountError;
  console.error(usage ? err.message : err);
  process.exit(usage ? 2 : 1);
});
