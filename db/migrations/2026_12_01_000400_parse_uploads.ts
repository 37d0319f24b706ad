import { sql, type Kysely } from 'kysely';

/**
 * Files uploaded to POST /v2/parse. The worker reads the bytes by id, so a 50 MB upload never
 * travels through a Temporal payload (whose limit is 2 MB). A row goes with its job, or with the
 * retention purge for an upload that never became one. A two-step upload (POST /v2/parse/upload-url,
 * PUT /v2/parse/upload/{id}) makes its row first, empty, with the capability `upload_ref` the PUT and
 * the later parse present, and fills `data` when the bytes arrive.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('parse_uploads')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addColumn('upload_ref', 'text', (c) => c.unique())
    .addColumn('received', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Office files and PDFs are compressed already: TOAST them out of line without trying again.
  await sql`alter table parse_uploads alter column data set storage external`.execute(db);
  await db.schema.createIndex('parse_uploads_created_idx').ifNotExists().on('parse_uploads').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('parse_uploads').ifExists().execute();
}
