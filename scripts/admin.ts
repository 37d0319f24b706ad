/**
 * Entry: `npm run admin -- <command>`; `npm run admin -- --help` lists the commands, and
 * `--help` after any command prints its own usage. Keys, teams and their plans, and team policies.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { planChangeSchema } from '../api/schemas/accounts.js';
import { AccountError, changePlan, createKey, createTeam, readStanding, replaceThreatPolicy, revokeKey } from '../api/accounts.js';
import { describeScopes, SCOPES } from '../api/auth/api-keys.js';
import { deleteMonitorSchedule } from '../api/monitor/schedules.js';
import { createDb, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrator.js';
import { listApiKeys } from '../db/repositories/api-keys.js';
import { deleteMonitor, listTeamMonitorIds } from '../db/repositories/monitors.js';
import { findTeamByName, retireTeam } from '../db/repositories/teams.js';
import { readThreatPolicy } from '../db/repositories/threat-policy.js';
import { loadConfig, type Config } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { temporalConnectionOptions } from '../lib/temporal-connection.js';
import { ENDPOINT_CLASSES, type EndpointClass } from '../lib/plans.js';

/** Each command: its usage line(s), and what it runs. `--help` after any of them prints its usage. */
const COMMANDS: Record<string, { usage: string; run: (ctx: CommandContext) => Promise<void> }> = {
  'keys create': {
    usage: `keys create --team NAME [--scopes ${SCOPES.join(',')}]
      a key for the team (made if missing); without --scopes it may use every scope but admin`,
    run: ({ db, values }) => createKeyCommand(db, values.team as string | undefined, values.scopes as string | undefined),
  },
  'keys list': { usage: 'keys list [--team NAME]', run: ({ db, values }) => listKeys(db, values.team as string | undefined) },
  'keys revoke': { usage: 'keys revoke <key id | key prefix>', run: ({ db, arg }) => revokeKeyCommand(db, arg) },
  'teams set': {
    usage: `teams set NAME [--credits N] [--tokens N] [--concurrency N] [--monitors N]
      [--agent-concurrency N] [--failed-agent-pages N]
      [${ENDPOINT_CLASSES.map((c) => `--${c}-rpm N`).join('] [')}]
      [--zdr true|false] [--threat-protection true|false] [--webhook-secret S]`,
    run: ({ db, arg, values }) => setTeam(db, arg, values),
  },
  'teams show': { usage: 'teams show NAME', run: ({ db, arg }) => showTeam(db, arg) },
  'teams delete': {
    usage: `teams delete NAME
      revokes the team's keys, deletes its monitors and their schedules; its jobs and ledger stay`,
    run: ({ db, config, arg }) => deleteTeamCommand(db, config, arg),
  },
  'threat-protection set': {
    usage: `threat-protection set TEAM --policy '{"enabled":true,"mode":"normal",...}'`,
    run: ({ db, arg, values }) => setThreatPolicy(db, arg, values.policy as string | undefined),
  },
  'threat-protection show': { usage: 'threat-protection show TEAM', run: ({ db, arg }) => showThreatPolicy(db, arg) },
};

const usageOf = (names: string[]) => `usage:\n${names.map((n) => `  npm run admin -- ${COMMANDS[n]!.usage}`).join('\n')}`;
const USAGE = usageOf(Object.keys(COMMANDS));

interface CommandContext {
  db: Db;
  config: Config;
  arg: string | undefined;
  values: Record<string, string | boolean | undefined>;
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { team: { type: 'string' }, scopes: { type: 'string' }, policy: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...PLAN_OPTIONS },
    });
  } catch (err) {
    // parseArgs' own TypeError for an unknown or malformed flag: the user's mistake, said plainly.
    throw new UsageError(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
  const { positionals, values } = parsed;
  const [group, command, arg] = positionals;
  const name = `${group} ${command}`;
  const known = COMMANDS[name];
  const ofGroup = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `));
  if (values.help) return void console.log(known ? usageOf([name]) : ofGroup.length ? usageOf(ofGroup) : USAGE);
  if (!known) throw new UsageError(ofGroup.length ? usageOf(ofGroup) : USAGE);
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { maxConnections: 2 });
  try {
    // The CLI may run before the service ever started; the schema must exist for it.
    const { error } = await migrateToLatest(db);
    if (error) throw error;
    await known.run({ db, config, arg, values });
  } finally {
    await db.destroy();
  }
}

/** Deletes the team's monitors' Schedules first: a Schedule left behind would keep starting checks. */
async function deleteTeamCommand(db: Db, config: Config, name: string | undefined): Promise<void> {
  if (!name) throw new UsageError(usageOf(['teams delete']));
  const team = await findTeamByName(db, name);
  if (!team) throw new UsageError(`no team named ${name}`);
  const monitors = await listTeamMonitorIds(db, team.id);
  if (monitors.length > 0) {
    const connection = await Connection.connect({ ...temporalConnectionOptions(config.temporal), connectTimeout: 5_000 });
    try {
      const deps = { temporal: new Client({ connection, namespace: config.temporal.namespace }), log: createLogger('warn') };
      for (const id of monitors) {
        await deleteMonitorSchedule(deps, id);
        await deleteMonitor(db, id);
      }
    } finally {
      await connection.close();
    }
  }
  const { keysRevoked } = await retireTeam(db, team.id);
  console.log(`deleted team "${name}": ${keysRevoked} key(s) revoked, ${monitors.length} monitor(s) deleted; its jobs and credit ledger are kept`);
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

/** Every plan field is a flag of the same name (api/schemas/accounts.ts). */
const PLAN_OPTIONS = Object.fromEntries(Object.keys(planChangeSchema.shape).map((name) => [name, { type: 'string' as const }]));

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
    ['monitors', `at most ${plan.monitors}`],
    ['agent runs', `${plan.agentConcurrency} at once; failed runs' pages unbilled up to ${plan.unbilledFailedAgentPages} a month`],
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
