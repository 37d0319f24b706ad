/**
 * Agent runs' rows: the trace, each step's tool result, snapshots, and the refund of a run that
 * is not billed. Writes are keyed by what the workflow numbered, so retried activities write once.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import { CURRENT_PERIOD } from './ledger.js';

export interface TraceEvent {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
}

export async function appendTraceEvents(db: Db, runId: string, events: readonly TraceEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('agent_trace_events')
    .values(events.map((e) => ({ run_id: runId, seq: e.seq, type: e.type, payload: JSON.stringify(e.payload) })))
    .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing())
    .execute();
}

export async function listTraceEvents(db: Db, runId: string) {
  return db.selectFrom('agent_trace_events').selectAll().where('run_id', '=', runId).orderBy('seq').execute();
}

export async function saveAgentStep(db: Db, runId: string, step: number, tool: string, input: Record<string, unknown>, result: string): Promise<void> {
  await db
    .insertInto('agent_steps')
    .values({ run_id: runId, step, tool, input: JSON.stringify(input), result })
    .onConflict((oc) => oc.columns(['run_id', 'step']).doUpdateSet({ tool, input: JSON.stringify(input), result }))
    .execute();
}

export async function listAgentSteps(db: Db, runId: string) {
  return db.selectFrom('agent_steps').select(['step', 'tool', 'input', 'result']).where('run_id', '=', runId).orderBy('step').execute();
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

/** Credits the run's ledger rows hold (its charge keys start with `agent:<run>:`). */
export async function readRunCredits(db: Db, runId: string): Promise<number> {
  const row = await db
    .selectFrom('credit_ledger')
    .select(sql<string | null>`sum(credits)`.as('n'))
    .where('charge_key', 'like', `agent:${runId}:%`)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Failed runs are not billed: the run's charges leave the ledger and the period total in one
 * transaction. Idempotent: a second refund finds nothing.
 */
export async function refundRun(db: Db, teamId: string, runId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('credit_ledger').where('charge_key', 'like', `agent:${runId}:%`).returning(['credits', 'created_at']).execute();
    const total = removed.reduce((n, r) => n + r.credits, 0);
    if (total > 0) {
      await trx
        .updateTable('credit_usage')
        .set({ used: sql`greatest(0, used - ${total})` })
        .where('team_id', '=', teamId)
        .where('period_start', '=', sql<Date>`${CURRENT_PERIOD}`)
        .execute();
    }
    return total;
  });
}
