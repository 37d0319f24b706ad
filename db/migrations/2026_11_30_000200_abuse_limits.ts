import { sql, type Kysely } from 'kysely';

/**
 * Plan limits on what a team can make the shared workers and Temporal do beyond its pages: how
 * many monitors (each a Temporal Schedule), how many agent runs at once, and how many pages its
 * failed agent runs may fetch unbilled per month. Stored plans get the defaults of lib/plans.ts.
 * And a deleted team: its keys are revoked and its monitors gone, but its jobs and ledger stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table team_plans
      add column if not exists max_monitors integer not null default 100,
      add column if not exists agent_concurrency integer not null default 10,
      add column if not exists unbilled_failed_agent_pages integer not null default 100`.execute(db);
  await sql`alter table teams add column if not exists deleted_at timestamptz`.execute(db);
  // Tool calls of failed agent runs that were refunded, per team and month (UTC).
  await sql`
    create table if not exists unbilled_failed_work (
      team_id uuid not null references teams(id) on delete cascade,
      period_start date not null,
      pages integer not null,
      primary key (team_id, period_start)
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists unbilled_failed_work`.execute(db);
  await sql`alter table teams drop column if exists deleted_at`.execute(db);
  await sql`
    alter table team_plans
      drop column if exists max_monitors,
      drop column if exists agent_concurrency,
      drop column if exists unbilled_failed_agent_pages`.execute(db);
}
