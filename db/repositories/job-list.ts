/** The dashboard's job list: a team's jobs of every kind, newest first, with pages and credits. */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { Job, JobKind, JobStatus } from '../schema.js';

/** Job kinds plus `monitor`: a monitor's checks are listed with the jobs, though they are not jobs. */
export type ListedKind = JobKind | 'monitor';

export interface JobListQuery {
  /** The teams whose jobs may be listed; the list never reaches beyond them. */
  teamIds: readonly string[];
  kind?: ListedKind;
  status?: JobStatus;
  offset: number;
  limit: number;
}

export interface JobListRow {
  id: string;
  teamId: string;
  teamName: string;
  kind: ListedKind;
  /** A job's status, or a monitor check's (`queued`, `partial`, `skipped_overlap`, ...). */
  status: string;
  /** A job's URL; for a monitor check, the monitor's name. */
  url: string | null;
  workflowId: string | null;
  createdAt: Date;
  completedAt: Date | null;
  pages: number;
  credits: number;
}

/** Which monitor-check states a job-status filter covers. */
const CHECK_STATUSES: Record<JobStatus, string[]> = {
  scraping: ['queued', 'running'],
  completed: ['completed', 'partial'],
  failed: ['failed'],
  cancelled: ['skipped_overlap', 'skipped_no_credits'],
};

/** One page of jobs and monitor checks, newest first, plus whether another follows (one row more is read to know). */
export async function listJobs(db: Db, q: JobListQuery): Promise<{ jobs: JobListRow[]; hasMore: boolean }> {
  if (q.teamIds.length === 0) return { jobs: [], hasMore: false };
  const jobs = db
    .selectFrom('jobs as j')
    .innerJoin('teams as t', 't.id', 'j.team_id')
    .select((eb) => [
      'j.id',
      'j.team_id as teamId',
      't.name as teamName',
      sql<ListedKind>`j.kind::text`.as('kind'),
      sql<string>`j.status::text`.as('status'),
      'j.url',
      sql<string | null>`j.workflow_id`.as('workflowId'),
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
    .$if(q.kind !== undefined && q.kind !== 'monitor', (qb) => qb.where('j.kind', '=', q.kind as JobKind))
    .$if(q.status !== undefined, (qb) => qb.where('j.status', '=', q.status!));
  const checks = db
    .selectFrom('monitor_checks as c')
    .innerJoin('monitors as m', 'm.id', 'c.monitor_id')
    .innerJoin('teams as t', 't.id', 'c.team_id')
    .select((eb) => [
      'c.id',
      'c.team_id as teamId',
      't.name as teamName',
      sql<ListedKind>`'monitor'`.as('kind'),
      sql<string>`c.status::text`.as('status'),
      'm.name as url',
      'c.workflow_id as workflowId',
      sql<Date>`coalesce(c.started_at, c.created_at)`.as('createdAt'),
      'c.finished_at as completedAt',
      eb.selectFrom('monitor_check_pages as p').select(sql<string>`count(*)`.as('n')).whereRef('p.check_id', '=', 'c.id').as('pages'),
      sql<string>`coalesce(c.actual_credits, 0)`.as('credits'),
    ])
    .where('c.team_id', 'in', q.teamIds)
    .where('c.expires_at', '>', new Date())
    .$if(q.status !== undefined, (qb) => qb.where('c.status', 'in', CHECK_STATUSES[q.status!] as never[]));
  const source = q.kind === 'monitor' ? checks : q.kind ? jobs : jobs.unionAll(checks);
  const rows = await db
    .selectFrom(source.as('u'))
    .selectAll()
    .orderBy('u.createdAt', 'desc')
    .orderBy('u.id', 'desc')
    .offset(q.offset)
    .limit(q.limit + 1)
    .execute();
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
