/**
 * Agent runs' rows: the trace, each step's tool result, snapshots, and the refund of a run that
 * is not billed. Writes are keyed by what the workflow numbered, so retried activities write once.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { Job } from '../schema.js';

export interface TraceEvent {
  seq: number;
  type: string;
  /** The workflow's clock when the event happened: the trace merges its agents' events by it. */
  occurredAt: number;
  payload: Record<string, unknown>;
}

/**
 * Agents of a run: '' is the orchestrator, '3' the sub-agent it spawned at step 3, '3.2' the one
 * that sub-agent spawned at its step 2.
 */
export type AgentKey = string;

export async function appendTraceEvents(db: Db, runId: string, agentKey: AgentKey, events: readonly TraceEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('agent_trace_events')
    .values(
      events.map((e) => ({ run_id: runId, agent_key: agentKey, seq: e.seq, type: e.type, occurred_at: new Date(e.occurredAt), payload: JSON.stringify(e.payload) })),
    )
    .onConflict((oc) => oc.columns(['run_id', 'agent_key', 'seq']).doNothing())
    .execute();
}

/** The run's events, its agents' merged in time order (each agent's own in its order). */
export async function listTraceEvents(db: Db, runId: string) {
  return db.selectFrom('agent_trace_events').selectAll().where('run_id', '=', runId).orderBy('occurred_at').orderBy('agent_key').orderBy('seq').execute();
}

export interface AgentStepRow {
  runId: string;
  agentKey: AgentKey;
  step: number;
  tool: string;
  input: Record<string, unknown>;
  result: string;
}

export async function saveAgentStep(db: Db, row: AgentStepRow): Promise<void> {
  const input = JSON.stringify(row.input);
  await db
    .insertInto('agent_steps')
    .values({ run_id: row.runId, agent_key: row.agentKey, step: row.step, tool: row.tool, input, result: row.result })
    .onConflict((oc) => oc.columns(['run_id', 'agent_key', 'step']).doUpdateSet({ tool: row.tool, input, result: row.result }))
    .execute();
}

export async function listAgentSteps(db: Db, runId: string, agentKey: AgentKey) {
  return db.selectFrom('agent_steps').select(['step', 'tool', 'input', 'result']).where('run_id', '=', runId).where('agent_key', '=', agentKey).orderBy('step').execute();
}

export async function saveSnapshot(db: Db, runId: string, snapshotId: string, content: unknown): Promise<void> {
  await db
    .insertInto('agent_snapshots')
    .values({ run_id: runId, snapshot_id: snapshotId, content: JSON.stringify(content) })
    .onConflict((oc) => oc.columns(['run_id', 'snapshot_id']).doNothing())
    .execute();
}

export async function findSnapshot(db: Db, runId: string, snapshotId: string) {
  return db.selectFrom('agent_snapshots').select('content').where('run_id', '=', runId).where('snapshot_id', '=', snapshotId).executeTakeFirst();
}

/** Credits the run's ledger rows hold (every charge of an agent job is one of its steps'). */
export async function readRunCredits(db: Db, runId: string): Promise<number> {
  const row = await db.selectFrom('credit_ledger').select(sql<string | null>`sum(credits)`.as('n')).where('job_id', '=', runId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * A failed run's refund, within the team's monthly allowance of unbilled failed work: its tool
 * calls are counted against `allowance` first, and when they would pass it the run stays billed.
 * Returns whether it was refunded.
 */
export async function refundFailedRun(db: Db, teamId: string, runId: string, allowance: number): Promise<{ refunded: boolean; toolCalls: number }> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ tool_calls: number; allowed: boolean }>`
      with charged as (
        select count(*)::int as tool_calls from credit_ledger where job_id = ${runId}::uuid
      ), allowed as (
        insert into unbilled_failed_work (team_id, period_start, pages)
        select ${teamId}::uuid, (date_trunc('month', now() at time zone 'UTC'))::date, tool_calls
        from charged where tool_calls > 0 and tool_calls <= ${allowance}
        on conflict (team_id, period_start) do update set pages = unbilled_failed_work.pages + excluded.pages
          where unbilled_failed_work.pages + excluded.pages <= ${allowance}
        returning 1
      )
      select (select tool_calls from charged) as tool_calls, exists (select 1 from allowed) as allowed`.execute(trx);
    const toolCalls = Number(rows[0]?.tool_calls ?? 0);
    if (toolCalls > 0 && !rows[0]?.allowed) return { refunded: false, toolCalls };
    await refundRun(trx, teamId, runId);
    return { refunded: true, toolCalls };
  });
}

/**
 * Failed runs are not billed: the run's charges leave the ledger, and each billing period's total
 * gives back what was charged in it, in one statement. Idempotent: a second refund finds nothing.
 */
async function refundRun(db: Db, teamId: string, runId: string): Promise<number> {
  const { rows } = await sql<{ total: number }>`
    with removed as (
      delete from credit_ledger where job_id = ${runId}::uuid returning credits, created_at
    ), by_period as (
      select (date_trunc('month', created_at at time zone 'UTC'))::date as period_start, sum(credits) as credits
      from removed group by 1
    ), given_back as (
      update credit_usage u set used = greatest(0, u.used - b.credits)
      from by_period b where u.team_id = ${teamId}::uuid and u.period_start = b.period_start
      returning 1
    )
    select coalesce(sum(credits), 0) as total from removed`.execute(db);
  return Number(rows[0]?.total ?? 0);
}

/** The team's agent runs not yet expired, newest first, created before `before` when given. */
export async function listTeamAgentRuns(db: Db, teamId: string, page: { limit: number; before?: Date }): Promise<Job[]> {
  let query = db
    .selectFrom('jobs')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('kind', '=', 'agent')
    .where('expires_at', '>', new Date())
    .orderBy('created_at', 'desc')
    .limit(page.limit);
  if (page.before) query = query.where('created_at', '<', page.before);
  return query.execute();
}
