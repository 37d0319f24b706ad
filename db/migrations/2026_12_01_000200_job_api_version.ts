import { sql, type Kysely } from 'kysely';

/**
 * The API version a job was started through (`v1` or `v2`), as GET /v2/team/activity reports it;
 * null for jobs no request started (a monitor's checks) and for jobs from before this column.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table jobs add column if not exists api_version text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table jobs drop column if exists api_version`.execute(db);
}
