import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's tables: sessions (signed in with an admin key, ended when the key is revoked,
 * by the foreign key's cascade and by the per-request check), each key's last use, and a per-day
 * count of the requests refused for a team's limits (the metrics counter is per process and
 * has no team).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys add column if not exists last_used_at timestamptz`.execute(db);
  await db.schema
    .createTable('dashboard_sessions')
    .ifNotExists()
    // sha256 of the cookie's value: a database read never yields a usable session.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    // Null only with AUTH=none, where no key signs in.
    .addColumn('api_key_id', 'uuid', (c) => c.references('api_keys.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    // A message for the next page after a form (post, redirect, get): never a key or secret.
    .addColumn('flash', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('team_refusals')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('team_refusals_pkey', ['team_id', 'day', 'code'])
    .execute();
  await db.schema.createIndex('credit_ledger_key_created_idx').ifNotExists().on('credit_ledger').columns(['api_key_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_team_created_idx').ifNotExists().on('jobs').columns(['team_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_team_created_idx').ifExists().execute();
  await db.schema.dropIndex('credit_ledger_key_created_idx').ifExists().execute();
  await db.schema.dropTable('team_refusals').ifExists().execute();
  await db.schema.dropTable('dashboard_sessions').ifExists().execute();
  await sql`alter table api_keys drop column if exists last_used_at`.execute(db);
}
