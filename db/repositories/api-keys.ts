import type { Db } from '../connect.js';
import type { ApiKey } from '../schema.js';

export interface KeyOwner {
  keyId: string;
  teamId: string;
  teamName: string;
  scopes: string[] | null;
  lastUsedAt: Date | null;
}

export async function insertApiKey(
  db: Db,
  key: { teamId: string; keyHash: string; keyPrefix: string; scopes: string[] | null },
): Promise<ApiKey> {
  return db
    .insertInto('api_keys')
    .values({ team_id: key.teamId, key_hash: key.keyHash, key_prefix: key.keyPrefix, scopes: key.scopes })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Looks a key up on every request, so revocation takes effect at once on every API process. */
export async function findActiveKeyOwner(db: Db, keyHash: string): Promise<KeyOwner | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('teams', 'teams.id', 'api_keys.team_id')
    .select(['api_keys.id as keyId', 'teams.id as teamId', 'teams.name as teamName', 'api_keys.scopes', 'api_keys.last_used_at as lastUsedAt'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Marks a key used now; callers skip it when the stored time is recent, so lookups stay reads. */
export async function touchApiKey(db: Db, keyId: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', keyId).execute();
}

/** Keys of one team (by name, as the CLI names them, or by id), or of every team. */
export async function listApiKeys(db: Db, team?: string | { id: string }) {
  let q = db
    .selectFrom('api_keys')
    .innerJoin('teams', 'teams.id', 'api_keys.team_id')
    .select([
      'api_keys.id',
      'api_keys.key_prefix',
      'api_keys.scopes',
      'api_keys.created_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'api_keys.team_id',
      'teams.name as team',
    ])
    .orderBy('api_keys.created_at');
  if (typeof team === 'string') q = q.where('teams.name', '=', team);
  else if (team) q = q.where('teams.id', '=', team.id);
  return q.execute();
}

/**
 * Revokes by id or by key prefix; returns how many keys were revoked. With `teamId`, only that
 * team's keys match (the dashboard of a team never reaches another's keys).
 */
export async function revokeApiKey(db: Db, idOrPrefix: string, teamId?: string): Promise<number> {
  const isUuid = /^[0-9a-f-]{36}$/i.test(idOrPrefix);
  let q = db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('revoked_at', 'is', null)
    .where(isUuid ? 'id' : 'key_prefix', '=', idOrPrefix);
  if (teamId) q = q.where('team_id', '=', teamId);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
