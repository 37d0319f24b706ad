import { sql, type Kysely } from 'kysely';

/**
 * The query-directed crawl (a crawl with `query`): each frontier row keeps its link's score and
 * the page that linked it, and the frontier is claimed best first through a partial index that
 * holds only scored rows still queued, so a claim reads the index's first qualifying entry however
 * large the frontier grows. `crawl_focus` is the crawl's one row of progress: what counts against
 * its limit, the relevant pages per query term, and why it stopped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('crawl_pages').addColumn('score', 'real').execute().catch(ignoreDuplicateColumn);
  await db.schema.alterTable('crawl_pages').addColumn('parent_url', 'text').execute().catch(ignoreDuplicateColumn);
  await sql`create index if not exists crawl_pages_best_idx on crawl_pages (job_id, score desc, seq)
    where status = 'queued' and score is not null`.execute(db);

  await db.schema
    .createTable('crawl_focus')
    .ifNotExists()
    .addColumn('job_id', 'uuid', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
    .addColumn('min_score', 'real', (c) => c.notNull())
    .addColumn('page_limit', 'integer', (c) => c.notNull())
    .addColumn('evidence', 'integer', (c) => c.notNull())
    .addColumn('claimed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('scored', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('relevant', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('streak', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pages_per_term', sql`integer[]`, (c) => c.notNull())
    .addColumn('stop_reason', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crawl_focus').ifExists().execute();
  await sql`drop index if exists crawl_pages_best_idx`.execute(db);
  await db.schema.alterTable('crawl_pages').dropColumn('parent_url').execute();
  await db.schema.alterTable('crawl_pages').dropColumn('score').execute();
}

function ignoreDuplicateColumn(err: { code?: string }): void {
  // 42701: duplicate_column, left by an earlier run that stopped half way.
  if (err.code !== '42701') throw err;
}
