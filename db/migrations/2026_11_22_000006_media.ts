import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Screenshots and PDFs the service serves at /v2/media/<id>.<ext>; the random id is the capability.
  await db.schema
    .createTable('media')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('job_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // PNG, JPEG and PDF bytes are compressed already: TOAST them out of line without trying again.
  await sql`alter table media alter column data set storage external`.execute(db);
  // The retention purge deletes oldest first.
  await db.schema.createIndex('media_created_idx').ifNotExists().on('media').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media').ifExists().execute();
}
