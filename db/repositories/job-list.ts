/** The dashboard's job list: a team's jobs of every kind, newest first, with pages and credits. */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { Job, JobKind, JobStatus } from '../schema.js';

export interface JobListQuery {
  /** The teams whose jobs may be listed; the list never reaches beyond them. */
  teamIds: readonly string[];
  kind?: JobKind;
  status?: JobStatus;
  offset: number;
  limit: number;
}

export interface JobListRow {
  id: string;
  teamId: string;
  teamName: string;
  kind: JobKind;
  status: JobStatus;
  url: string | null;
  workflowId: string;
  createdAt: Date;
  completedAt: Date | null;
  pages: number;
  credits: number;
}

/** One page of jobs plus whether another follows (one row more is read to know). */
export async function listJobs(db: Db, q: JobListQuery): Promise<{ jobs: JobListRow[]; hasMore: boolean }> {
  if (q.teamIds.length === 0) return { jobs: [], hasMore: false };
  let query = db
    .selectFrom('jobs as j')
    .innerJoin('teams as t', 't.id', 'j.team_id')
    .select((eb) => [
      'j.id',
      'j.team_id as teamId',
      't.name as teamName',
      'j.kind',
      'j.status',
      'j.url',
      'j.workflow_id as workflowId',
      'j.created_at as createdAt',
      'j.completed_at as completedAt',
      eb
        .selectFrom('documents as d')
        .select(sql<string>`count(*)`.as('n'))
        .whereRef('d.job_id', '=', 'j.id')
        .where('d.status', '=', 'completed')
        .as('pages'),
      eb
        .selectFrom('credit_ledger as l')
        .select(sql<string>`coalesce(sum(l.credits), 0)`.as('n'))
        .whereRef('l.job_id', '=', 'j.id')
        .as('credits'),
    ])
    .where('j.team_id', 'in', q.teamIds)
    .where('j.expires_at', '>', new Date())
    .orderBy('j.created_at', 'desc')
    .orderBy('j.id', 'desc')
    .offset(q.offset)
    .limit(q.limit + 1);
  if (q.kind) query = query.where('j.kind', '=', q.kind);
  if (q.status) query = query.where('j.status', '=', q.status);
  const rows = await query.execute();
  return {
    jobs: rows.slice(0, q.limit).map((r) => ({ ...r, pages: Number(r.pages ?? 0), credits: Number(r.credits ?? 0) })),
    hasMore: rows.length > q.limit,
  };
}

/** Any team's job by id, unexpired: the caller decides whether the viewer may see its team. */
export async function findLiveJob(db: Db, jobId: string): Promise<Job | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('expires_at', '>', new Date()).executeTakeFirst();
}

/** Pages stored and credits charged for one job, as the list counts them. */
export async function readJobTotals(db: Db, jobId: string): Promise<{ pages: number; credits: number }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('documents').select(sql<string>`count(*)`.as('n')).where('job_id', '=', jobId).where('status', '=', 'completed').as('pages'),
      eb.selectFrom('credit_ledger').select(sql<string>`coalesce(sum(credits), 0)`.as('n')).where('job_id', '=', jobId).as('credits'),
    ])
    .executeTakeFirstOrThrow();
  return { pages: Number(row.pages ?? 0), credits: Number(row.credits ?? 0) };
}
