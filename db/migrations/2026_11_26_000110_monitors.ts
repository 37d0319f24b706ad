import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A monitor: its wire fields as the API normalised them, and the run plan its checks follow.
  await db.schema
    .createTable('monitors')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('schedule', 'jsonb', (c) => c.notNull())
    .addColumn('targets', 'jsonb', (c) => c.notNull())
    .addColumn('webhook', 'jsonb')
    .addColumn('notification', 'jsonb')
    .addColumn('retention_days', 'integer', (c) => c.notNull())
    .addColumn('goal', 'text')
    .addColumn('judge_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('estimated_credits_per_month', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('schedule_id', 'text', (c) => c.notNull())
    .addColumn('current_check_id', 'uuid')
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('last_check_summary', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('monitors_team_idx').ifNotExists().on('monitors').columns(['team_id', 'created_at']).execute();

  await db.schema
    .createTable('monitor_checks')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('monitor_id', 'uuid', (c) => c.notNull().references('monitors.id').onDelete('cascade'))
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('scheduled_for', 'timestamptz')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('estimated_credits', 'integer')
    .addColumn('actual_credits', 'integer')
    .addColumn('summary', 'jsonb', (c) => c.notNull())
    .addColumn('target_results', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('judged', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('error', 'text')
    .addColumn('workflow_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitor_checks_monitor_idx').ifNotExists().on('monitor_checks').columns(['monitor_id', 'created_at']).execute();
  await db.schema.createIndex('monitor_checks_expires_idx').ifNotExists().on('monitor_checks').column('expires_at').execute();

  // One row per page a check compared; (check, target, url key) is unique so a retried activity writes once.
  await db.schema
    .createTable('monitor_check_pages')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('check_id', 'uuid', (c) => c.notNull().references('monitor_checks.id').onDelete('cascade'))
    .addColumn('monitor_id', 'uuid', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('url_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('previous_scrape_id', 'text')
    .addColumn('current_scrape_id', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('diff', 'jsonb')
    .addColumn('judgment', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('monitor_check_pages_unique', ['check_id', 'target_id', 'url_key'])
    .execute();

  // Validators of the snapshot's response, for the conditional request of a monitor's next check.
  await db.schema.alterTable('change_snapshots').addColumn('etag', 'text').execute();
  await db.schema.alterTable('change_snapshots').addColumn('last_modified', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_snapshots').dropColumn('last_modified').execute();
  await db.schema.alterTable('change_snapshots').dropColumn('etag').execute();
  for (const table of ['monitor_check_pages', 'monitor_checks', 'monitors']) await db.schema.dropTable(table).ifExists().execute();
}
