import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // What is left of a purged job: enough to answer 404 JOB_EXPIRED instead of "not found".
  await db.schema
    .createTable('expired_jobs')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('expired_at', 'timestamptz', (c) => c.notNull())
    .addColumn('purged_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The purge finds expired jobs oldest first.
  await db.schema.createIndex('jobs_expires_idx').ifNotExists().on('jobs').column('expires_at').execute();
  await db.schema.createIndex('expired_jobs_purged_idx').ifNotExists().on('expired_jobs').column('purged_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_expires_idx').ifExists().execute();
  await db.schema.dropTable('expired_jobs').ifExists().execute();
}
