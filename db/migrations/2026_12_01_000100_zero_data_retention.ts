import { sql, type Kysely } from 'kysely';

/**
 * Zero data retention per job: a ZDR job's Documents are deleted once delivered, or by the purge
 * a short window after the job ends (db/repositories/zero-data-retention.ts). The partial index
 * lets the purge find those few jobs without reading every job row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table jobs add column if not exists zero_data_retention boolean not null default false`.execute(db);
  await sql`create index if not exists jobs_zero_data_retention_idx on jobs (updated_at) where zero_data_retention`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists jobs_zero_data_retention_idx`.execute(db);
  await sql`alter table jobs drop column if exists zero_data_retention`.execute(db);
}
