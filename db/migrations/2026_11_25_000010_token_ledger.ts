import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per model call. Like the credit ledger, job_id has no foreign key: usage outlives jobs.
  await db.schema
    .createTable('token_ledger')
    .ifNotExists()
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('api_key_id', 'uuid')
    .addColumn('job_id', 'uuid')
    .addColumn('feature', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('input_tokens', 'integer', (c) => c.notNull().check(sql`input_tokens >= 0`))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().check(sql`output_tokens >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('token_ledger_team_created_idx').ifNotExists().on('token_ledger').columns(['team_id', 'created_at']).execute();
  await db.schema.createIndex('token_ledger_job_idx').ifNotExists().on('token_ledger').column('job_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('token_ledger').ifExists().execute();
}
