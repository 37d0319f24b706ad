import { sql, type Kysely } from 'kysely';

/**
 * Agent threads: a conversation of agent runs. The thread is a row; each run is an agent job
 * that names its thread and its turn (1, 2, ...), so a follow-up run reads the earlier turns'
 * prompts and answers from the jobs and their snapshots (db/repositories/agent-threads.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table if not exists agent_threads (
      id uuid primary key,
      team_id uuid not null references teams(id) on delete cascade,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    alter table jobs
      add column if not exists thread_id uuid references agent_threads(id) on delete set null,
      add column if not exists thread_turn integer`.execute(db);
  await sql`create index if not exists jobs_thread_idx on jobs (thread_id, thread_turn) where thread_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists jobs_thread_idx`.execute(db);
  await sql`alter table jobs drop column if exists thread_turn, drop column if exists thread_id`.execute(db);
  await sql`drop table if exists agent_threads`.execute(db);
}
