import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The frontier and seen-set of crawls and batch scrapes: one row per (job, normalised URL),
  // so a URL is queued once however many pages link to it and however often an activity retries.
  await db.schema
    .createTable('crawl_pages')
    .ifNotExists()
    .addColumn('job_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('url_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('seq', 'bigserial', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('document_id', 'uuid')
    .addColumn('error_code', 'text')
    .addColumn('error', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('crawl_pages_pkey', ['job_id', 'url_key'])
    .execute();
  await db.schema
    .createIndex('crawl_pages_queue_idx')
    .ifNotExists()
    .on('crawl_pages')
    .columns(['job_id', 'status', 'seq'])
    .execute();

  await db.schema
    .createTable('robots_blocked')
    .ifNotExists()
    .addColumn('job_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('robots_blocked_pkey', ['job_id', 'url'])
    .execute();

  await db.schema.alterTable('jobs').addColumn('result', 'jsonb').execute().catch(ignoreDuplicateColumn);
  await db.schema.alterTable('jobs').addColumn('warning', 'text').execute().catch(ignoreDuplicateColumn);
  await db.schema
    .alterTable('jobs')
    .addColumn('idempotency_key', 'text')
    .execute()
    .catch(ignoreDuplicateColumn);
  await db.schema
    .createIndex('jobs_team_idempotency_key')
    .ifNotExists()
    .unique()
    .on('jobs')
    .columns(['team_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_team_idempotency_key').ifExists().execute();
  await db.schema.alterTable('jobs').dropColumn('idempotency_key').execute();
  await db.schema.alterTable('jobs').dropColumn('warning').execute();
  await db.schema.alterTable('jobs').dropColumn('result').execute();
  await db.schema.dropTable('robots_blocked').ifExists().execute();
  await db.schema.dropTable('crawl_pages').ifExists().execute();
}

function ignoreDuplicateColumn(err: { code?: string }): void {
  // 42701: duplicate_column, left by an earlier run that stopped half way.
  if (err.code !== '42701') throw err;
}
