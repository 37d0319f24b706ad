/**
 * Entry: `npm run admin -- <command>`.
 *   keys create --team NAME [--scopes scrape,crawl,...]   prints the new key alone on the last line
 *   keys list [--team NAME]
 *   keys revoke <key id | key prefix>
 */
import { parseArgs } from 'node:util';
import { generateApiKey, hashApiKey, keyPrefix, SCOPES } from '../api/auth/api-keys.js';
import { createDb, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrator.js';
import { insertApiKey, listApiKeys, revokeApiKey } from '../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../db/repositories/teams.js';
import { loadConfig } from '../lib/config.js';

const USAGE = `usage:
  npm run admin -- keys create --team NAME [--scopes ${SCOPES.join(',')}]
  npm run admin -- keys list [--team NAME]
  npm run admin -- keys revoke <key id | key prefix>`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { team: { type: 'string' }, scopes: { type: 'string' } },
  });
  const [group, command, arg] = positionals;
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { maxConnections: 2 });
  try {
    // The CLI may run before the service ever started; the schema must exist for it.
    const { error } = await migrateToLatest(db);
    if (error) throw error;
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

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exit(err instanceof UsageError ? 2 : 1);
});
