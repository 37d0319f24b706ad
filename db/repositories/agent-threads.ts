/**
 * Agent threads: conversations of agent runs. A thread is a row; its runs are agent jobs that
 * carry its id and their turn. Turns are numbered under the thread's row lock, after the run's
 * job row is written, so two follow-ups at once cannot take the same turn (api/job-start.ts's
 * `admit`).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { JobStatus } from '../schema.js';

export async function createThread(db: Db, teamId: string): Promise<string> {
  const id = randomUUID();
  await db.insertInto('agent_threads').values({ id, team_id: teamId }).execute();
  return id;
}

/** The options of the thread's latest turn; null for a thread without runs, undefined for no such thread of the team's. */
export async function lastTurnOptions(db: Db, teamId: string, threadId: string): Promise<Record<string, unknown> | null | undefined> {
  const row = await db
    .selectFrom('agent_threads as t')
    .leftJoin('jobs as j', (join) => join.onRef('j.thread_id', '=', 't.id').on('j.thread_turn', 'is not', null))
    .select('j.options')
    .where('t.id', '=', threadId)
    .where('t.team_id', '=', teamId)
    .orderBy('j.thread_turn', (ob) => ob.desc().nullsLast())
    .limit(1)
    .executeTakeFirst();
  return row ? (row.options ?? null) : undefined;
}

/**
 * Gives the run the thread's next turn. Refused (`busy`) while another run of the thread is still
 * working: a turn must see the answers of every turn before it.
 */
export async function takeTurn(db: Db, threadId: string, runId: string): Promise<{ turn: number } | { busy: true }> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('agent_threads').select('id').where('id', '=', threadId).forUpdate().executeTakeFirstOrThrow();
    const { rows } = await sql<{ busy: boolean; last: number | null }>`
      select bool_or(status = 'scraping' and id <> ${runId}::uuid) as busy, max(thread_turn) as last
      from jobs where thread_id = ${threadId}::uuid`.execute(trx);
    if (rows[0]?.busy) return { busy: true as const };
    const turn = (rows[0]?.last ?? 0) + 1;
    await trx.updateTable('jobs').set({ thread_turn: turn }).where('id', '=', runId).execute();
    await trx.updateTable('agent_threads').set({ updated_at: new Date() }).where('id', '=', threadId).execute();
    return { turn };
  });
}

export interface ThreadRun {
  id: string;
  turn: number;
  status: JobStatus;
  error: string | null;
  options: Record<string, unknown>;
  createdAt: Date;
  completedAt: Date | null;
  /** The run's final answer (its result snapshot); undefined until it succeeds. */
  answer?: unknown;
}

export interface Thread {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  runs: ThreadRun[];
}

/** The team's thread with its runs in turn order, each with its answer; `beforeTurn` keeps earlier ones only. */
export async function readThread(db: Db, teamId: string, threadId: string, beforeTurn?: number): Promise<Thread | undefined> {
  const thread = await db.selectFrom('agent_threads').selectAll().where('id', '=', threadId).where('team_id', '=', teamId).executeTakeFirst();
  if (!thread) return undefined;
  let runs = db
    .selectFrom('jobs')
    .leftJoin('agent_snapshots as s', (join) => join.onRef('s.run_id', '=', 'jobs.id').on(sql<boolean>`s.snapshot_id = jobs.result->>'snapshotId'`))
    .select(['jobs.id', 'jobs.thread_turn', 'jobs.status', 'jobs.error', 'jobs.options', 'jobs.created_at', 'jobs.completed_at', 's.content'])
    .where('jobs.thread_id', '=', threadId)
    .where('jobs.thread_turn', 'is not', null)
    .orderBy('jobs.thread_turn');
  if (beforeTurn !== undefined) runs = runs.where('jobs.thread_turn', '<', beforeTurn);
  return {
    id: thread.id,
    createdAt: thread.created_at,
    updatedAt: thread.updated_at,
    runs: (await runs.execute()).map((r) => ({
      id: r.id,
      turn: r.thread_turn!,
      status: r.status,
      error: r.error,
      options: r.options,
      createdAt: r.created_at,
      completedAt: r.completed_at,
      ...(r.status === 'completed' && r.content !== null && { answer: r.content }),
    })),
  };
}
