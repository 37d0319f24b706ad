import { sql, type Kysely } from 'kysely';

/**
 * Sub-agents write into their run's trace and keep their own steps: both tables are keyed by
 * the agent within the run ('' is the orchestrator, '3' the sub-agent it spawned at step 3,
 * '3.2' that one's own). Each agent numbers its events, so the key is (run, agent, seq).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, counter] of [
    ['agent_trace_events', 'seq'],
    ['agent_steps', 'step'],
  ] as const) {
    await sql`alter table ${sql.table(table)} add column if not exists agent_key text not null default ''`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(`${table}_pkey`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_pkey`)} primary key (run_id, agent_key, ${sql.ref(counter)})`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, counter] of [
    ['agent_trace_events', 'seq'],
    ['agent_steps', 'step'],
  ] as const) {
    await sql`delete from ${sql.table(table)} where agent_key <> ''`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(`${table}_pkey`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_pkey`)} primary key (run_id, ${sql.ref(counter)})`.execute(db);
    await sql`alter table ${sql.table(table)} drop column if exists agent_key`.execute(db);
  }
}
