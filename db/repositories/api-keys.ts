import type { Db } from '../connect.js';
import type { ApiKey } from '../schema.js';

export interface KeyOwner {
  keyId: string;
  teamId: string;
  teamName: string;
  scopes: string[] | null;
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
    .select(['api_keys.id as keyId', 'teams.id as teamId', 'teams.name as teamName', 'api_keys.scopes'])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function listApiKeys(db: Db, teamName?: string) {
  let q = db
    .selectFrom('api_keys')
    .innerJoin('teams', 'teams.id', 'api_keys.team_id')
    .select([
      'api_keys.id',
      'api_keys.key_prefix',
      'api_keys.scopes',
      'api_keys.created_at',
      'api_keys.revoked_at',
      'teams.name as team',
    ])
    .orderBy('api_keys.created_at');
  if (teamName) q = q.where('teams.name', '=', teamName);
  return q.execute();
}

/** Revokes by id or by key prefix; returns how many keys were revoked. */
export async function revokeApiKey(db: Db, idOrPrefix: string): Promise<number> {
  const isUuid = /^[0-9a-f-]{36}$/i.test(idOrPrefix);
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('revoked_at', 'is', null)
    .where(isUuid ? 'id' : 'key_prefix', '=', idOrPrefix)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
