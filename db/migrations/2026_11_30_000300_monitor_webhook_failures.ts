import { sql, type Kysely } from 'kysely';

/**
 * A monitor check's webhooks fail like a job's, but a check is not a job: its failed deliveries
 * were refused by the foreign key to jobs and never shown. They now name their check, and go
 * with it when it expires.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table webhook_failures
      alter column job_id drop not null,
      add column if not exists check_id uuid references monitor_checks(id) on delete cascade`.execute(db);
  await sql`
    do $$ begin
      alter table webhook_failures add constraint webhook_failures_owner check ((job_id is null) <> (check_id is null));
    exception when duplicate_object then null; end $$`.execute(db);
  await db.schema.createIndex('webhook_failures_check_idx').ifNotExists().on('webhook_failures').columns(['check_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from webhook_failures where job_id is null`.execute(db);
  await sql`alter table webhook_failures drop constraint if exists webhook_failures_owner, drop column if exists check_id, alter column job_id set not null`.execute(db);
}
