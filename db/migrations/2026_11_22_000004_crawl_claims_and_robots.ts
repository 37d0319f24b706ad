import { type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A claim token per claim call: a retried claim activity gets back the pages it claimed the
  // first time instead of stranding them in `scraping`.
  await db.schema.alterTable('crawl_pages').addColumn('claim_id', 'text').execute().catch(ignoreDuplicateColumn);

  // robots.txt is fetched once per origin per crawl and shared by every worker through here.
  await db.schema
    .createTable('crawl_robots')
    .ifNotExists()
    .addColumn('job_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('crawl_robots_pkey', ['job_id', 'origin'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crawl_robots').ifExists().execute();
  await db.schema.alterTable('crawl_pages').dropColumn('claim_id').execute();
}

function ignoreDuplicateColumn(err: { code?: string }): void {
  if (err.code !== '42701') throw err;
}
