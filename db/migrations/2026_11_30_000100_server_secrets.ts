import type { Kysely } from 'kysely';

/**
 * Secrets the API processes share and nobody sends: each is made once, by whichever process
 * asks first, so every process of a deployment signs and checks with the same one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_secrets')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bytea', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_secrets').ifExists().execute();
}
