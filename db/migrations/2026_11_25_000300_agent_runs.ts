import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An agent run's ordered trace. (run_id, seq) is unique: the workflow numbers events, so a
  // retried activity writes each once.
  await db.schema
    .createTable('agent_trace_events')
    .ifNotExists()
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('agent_trace_events_pkey', ['run_id', 'seq'])
    .execute();
  // What each step of a run did, so the next model call sees the results without them passing
  // through Temporal; and the run's snapshots of its partial and final result.
  await db.schema
    .createTable('agent_steps')
    .ifNotExists()
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('input', 'jsonb', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_steps_pkey', ['run_id', 'step'])
    .execute();
  await db.schema
    .createTable('agent_snapshots')
    .ifNotExists()
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('snapshot_id', 'text', (c) => c.notNull())
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('agent_snapshots_pkey', ['run_id', 'snapshot_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['agent_snapshots', 'agent_steps', 'agent_trace_events']) await db.schema.dropTable(table).ifExists().execute();
}
