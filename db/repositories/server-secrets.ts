/** Server secrets (db/migrations/2026_11_30_000100_server_secrets.ts): made once, shared by every process. */
import { randomBytes } from 'node:crypto';
import type { Db } from '../connect.js';

/** The secret called `name`, made now (32 random bytes) if no process made it before. */
async function serverSecret(db: Db, name: string): Promise<Buffer> {
  await db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

const remembered = new WeakMap<Db, Map<string, Promise<Buffer>>>();

/** serverSecret, read once per process and database; a failed read is tried again on the next call. */
export function rememberedServerSecret(db: Db, name: string): Promise<Buffer> {
  const byName = remembered.get(db) ?? new Map<string, Promise<Buffer>>();
  remembered.set(db, byName);
  let secret = byName.get(name);
  if (!secret) {
    secret = serverSecret(db, name);
    byName.set(name, secret);
    void secret.catch(() => byName.delete(name));
  }
  return secret;
}
