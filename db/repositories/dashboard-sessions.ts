/** Dashboard sessions. Only a hash of the cookie is stored; the key is re-checked on every read. */
import type { Db } from '../connect.js';

export interface SessionRow {
  csrfToken: string;
  flash: string | null;
  /** Null with AUTH=none. */
  apiKeyId: string | null;
  /** The signed-in key's team and scopes, read with the session: a revoked key has no session. */
  teamId: string | null;
  teamName: string | null;
  scopes: string[] | null;
  keyPrefix: string | null;
}

export async function insertSession(
  db: Db,
  session: { tokenHash: string; apiKeyId: string | null; csrfToken: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('dashboard_sessions')
    .values({ token_hash: session.tokenHash, api_key_id: session.apiKeyId, csrf_token: session.csrfToken, expires_at: session.expiresAt })
    .execute();
}

/**
 * A live session: not expired, and signed in with a key that is still active (a session of
 * AUTH=none has no key). A revoked key's sessions read as absent from the moment it is revoked.
 */
export async function findSession(db: Db, tokenHash: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .leftJoin('api_keys as k', 'k.id', 's.api_key_id')
    .leftJoin('teams as t', 't.id', 'k.team_id')
    .select(['s.csrf_token', 's.flash', 's.api_key_id', 'k.revoked_at', 'k.scopes', 'k.key_prefix', 't.id as team_id', 't.name as team_name'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row || (row.api_key_id !== null && row.revoked_at !== null)) return undefined;
  return { csrfToken: row.csrf_token, flash: row.flash, apiKeyId: row.api_key_id, teamId: row.team_id, teamName: row.team_name, scopes: row.scopes, keyPrefix: row.key_prefix };
}

/** Sets (or, with null, clears) the message the session's next page shows. */
export async function setSessionFlash(db: Db, tokenHash: string, flash: string | null): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ flash }).where('token_hash', '=', tokenHash).execute();
}

/** Deletes the session, and any expired ones while at it. */
export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where((eb) => eb.or([eb('token_hash', '=', tokenHash), eb('expires_at', '<', new Date())])).execute();
}
