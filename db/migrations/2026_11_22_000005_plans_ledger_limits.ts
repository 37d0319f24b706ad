import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A team's plan. No row means the defaults in lib/plans.ts, so they can change without a migration.
  await db.schema
    .createTable('team_plans')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('monthly_credits', 'bigint', (c) => c.notNull())
    .addColumn('monthly_tokens', 'bigint', (c) => c.notNull())
    .addColumn('scrape_rpm', 'integer', (c) => c.notNull())
    .addColumn('crawl_rpm', 'integer', (c) => c.notNull())
    .addColumn('crawl_status_rpm', 'integer', (c) => c.notNull())
    .addColumn('map_rpm', 'integer', (c) => c.notNull())
    .addColumn('search_rpm', 'integer', (c) => c.notNull())
    .addColumn('extract_rpm', 'integer', (c) => c.notNull())
    .addColumn('agent_rpm', 'integer', (c) => c.notNull())
    .addColumn('concurrency', 'integer', (c) => c.notNull())
    .addColumn('zero_data_retention', 'boolean', (c) => c.notNull())
    .addColumn('threat_protection', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The key that started a job; usage by key is read through it.
  await db.schema
    .alterTable('jobs')
    .addColumn('api_key_id', 'uuid', (c) => c.references('api_keys.id').onDelete('set null'))
    .execute()
    .catch(ignoreDuplicateColumn);

  // Append-only: one row per charge, unique per charge key so a retried activity never charges
  // twice. job_id has no foreign key: the ledger outlives the jobs it bills for.
  await db.schema
    .createTable('credit_ledger')
    .ifNotExists()
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('api_key_id', 'uuid')
    .addColumn('job_id', 'uuid')
    .addColumn('document_id', 'uuid')
    .addColumn('charge_key', 'text', (c) => c.notNull().unique())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull().check(sql`credits > 0`))
    // now(), not clock_timestamp(): the transaction's time, the same one that picks the period below.
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('credit_ledger_team_created_idx')
    .ifNotExists()
    .on('credit_ledger')
    .columns(['team_id', 'created_at'])
    .execute();
  await db.schema.createIndex('credit_ledger_job_idx').ifNotExists().on('credit_ledger').column('job_id').execute();

  // The ledger's running total per team and billing period, written in the same transaction as
  // each ledger row, so checking a charge against the plan is one row lock, not a sum.
  await db.schema
    .createTable('credit_usage')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('period_start', 'date', (c) => c.notNull())
    .addColumn('used', 'bigint', (c) => c.notNull().check(sql`used >= 0`))
    .addPrimaryKeyConstraint('credit_usage_pkey', ['team_id', 'period_start'])
    .execute();

  // Fixed one-minute windows shared by every API process.
  await db.schema
    .createTable('rate_limit_counters')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pkey', ['team_id', 'endpoint', 'window_start'])
    .execute();

  // Numbered lease slots: the primary key makes more than `concurrency` live leases impossible.
  await db.schema
    .createTable('concurrency_slots')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('lease_id', 'uuid', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('concurrency_slots_pkey', ['team_id', 'slot'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('concurrency_slots').ifExists().execute();
  await db.schema.dropTable('rate_limit_counters').ifExists().execute();
  await db.schema.dropTable('credit_usage').ifExists().execute();
  await db.schema.dropTable('credit_ledger').ifExists().execute();
  await db.schema.alterTable('jobs').dropColumn('api_key_id').execute();
  await db.schema.dropTable('team_plans').ifExists().execute();
}

function ignoreDuplicateColumn(err: { code?: string }): void {
  // 42701: duplicate_column, left by an earlier run that stopped half way.
  if (err.code !== '42701') throw err;
}
