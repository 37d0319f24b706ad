import { sql, type Kysely } from 'kysely';

/**
 * Live browser sessions (workflows/browser-session.ts): each is a job of kind `browser` with a row
 * here for what only a session has; its replay frames, one screenshot per execute; and a team's
 * saved browser profiles, sealed with the server's BROWSER_PROFILE_KEY (lib/sealed-box.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('browser_sessions')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    // A scrape's interact session; a scrape has at most one at a time.
    .addColumn('scrape_id', 'uuid')
    .addColumn('ttl_s', 'integer', (c) => c.notNull())
    .addColumn('activity_ttl_s', 'integer', (c) => c.notNull())
    .addColumn('profile_name', 'text')
    .addColumn('save_changes', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('used_prompt', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_activity_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .addColumn('end_reason', 'text')
    .addColumn('duration_ms', 'bigint')
    .addColumn('credits_billed', 'integer')
    .execute();
  await sql`create unique index if not exists browser_sessions_active_scrape on browser_sessions (scrape_id) where scrape_id is not null and status = 'active'`.execute(db);
  await db.schema.createIndex('browser_sessions_team_idx').ifNotExists().on('browser_sessions').columns(['team_id', 'created_at']).execute();
  await db.schema
    .createTable('browser_session_frames')
    .ifNotExists()
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('browser_sessions.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('page_url', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('image', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('browser_session_frames_pk', ['session_id', 'seq'])
    .execute();
  await sql`alter table browser_session_frames alter column image set storage external`.execute(db);
  await db.schema
    .createTable('browser_profiles')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sealed', 'bytea', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('browser_profiles_pk', ['team_id', 'name'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('browser_session_frames').ifExists().execute();
  await db.schema.dropTable('browser_sessions').ifExists().execute();
  await db.schema.dropTable('browser_profiles').ifExists().execute();
}
