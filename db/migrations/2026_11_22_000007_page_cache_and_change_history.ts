import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The page cache: one row per (team, key). Per team on purpose: a copy scraped for one team is
  // never served to another (pages can differ by cookie, IP or plan; teams asked for isolation).
  await db.schema
    .createTable('page_cache')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('cache_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('outcome', 'jsonb', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('cached_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('page_cache_pk', ['team_id', 'cache_key'])
    .execute();
  // The per-team byte cap evicts a team's oldest rows first; the age purge scans every team.
  await db.schema.createIndex('page_cache_team_age_idx').ifNotExists().on('page_cache').columns(['team_id', 'cached_at']).execute();
  await db.schema.createIndex('page_cache_age_idx').ifNotExists().on('page_cache').column('cached_at').execute();

  // Markdown snapshots for change tracking, per (team, URL key, tag). Not tied to jobs: the
  // history must outlive the 24 h job retention. One row per job, so a retried page replaces its
  // own snapshot instead of comparing against it.
  await db.schema
    .createTable('change_snapshots')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('url_key', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('job_id', 'uuid', (c) => c.notNull())
    .addColumn('markdown', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('scraped_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('change_snapshots_pk', ['team_id', 'url_key', 'tag', 'job_id'])
    .execute();
  await db.schema
    .createIndex('change_snapshots_latest_idx')
    .ifNotExists()
    .on('change_snapshots')
    .columns(['team_id', 'url_key', 'tag', 'scraped_at desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_snapshots').ifExists().execute();
  await db.schema.dropTable('page_cache').ifExists().execute();
}
