/** Server secrets (db/migrations/2026_11_30_000100_server_secrets.ts): made once, shared by every process. */
import { randomBytes } from 'node:crypto';
import type { Db } from '../connect.js';

/** The secret called `name`, made now (32 random bytes) if no process made it before. */
export async function serverSecret(db: Db, name: string): Promise<Buffer> {
  await db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
