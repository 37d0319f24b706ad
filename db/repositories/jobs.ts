import type { QueryCreator } from 'kysely';
import type { Db } from '../connect.js';
import { relaxedCommit } from '../relaxed-commit.js';
import type { Database, Job, JobStatus, NewJob } from '../schema.js';

/**
 * `relaxed`: commit without waiting for the disk (db/relaxed-commit.ts), for a job whose row is
 * made durable by the commit of its result (or of its failure) before anyone is told its id.
 */
export async function insertJob(db: Db, job: NewJob, options: { relaxed?: boolean } = {}): Promise<void> {
  const insert = db.insertInto('jobs').values(job);
  await (options.relaxed ? insert.returning(relaxedCommit(db).as('relaxed')) : insert).execute();
}

/** Team-scoped lookup: another team's job is indistinguishable from a missing one. */
export async function findTeamJob(db: Db, teamId: string, jobId: string): Promise<Job | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('team_id', '=', teamId).executeTakeFirst();
}

export async function setJobStatus(
  db: Db,
  jobId: string,
  status: JobStatus,
  error: string | null = null,
): Promise<void> {
  const terminal = status !== 'scraping';
  await db
    .updateTable('jobs')
    .set({ status, error, updated_at: new Date(), ...(terminal ? { completed_at: new Date() } : {}) })
    .where('id', '=', jobId)
    .execute();
}

/**
 * Moves a running job to a terminal status. Only a `scraping` job moves, so a cancel recorded by
 * the API is never overwritten by a workflow finishing at the same moment. Returns whether it moved.
 */
export async function finishJob(
  db: Db,
  jobId: string,
  status: Exclude<JobStatus, 'scraping'>,
  fields: { error?: string | null; warning?: string | null } = {},
): Promise<boolean> {
  const result = await jobFinish(db, jobId, status, fields).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** finishJob's update, also run as part of a scrape's result (db/repositories/documents.ts). */
export function jobFinish(
  q: QueryCreator<Database>,
  jobId: string,
  status: Exclude<JobStatus, 'scraping'>,
  fields: { error?: string | null; warning?: string | null } = {},
) {
  return q
    .updateTable('jobs')
    .set({
      status,
      updated_at: new Date(),
      completed_at: new Date(),
      ...(fields.error !== undefined && { error: fields.error }),
      ...(fields.warning !== undefined && { warning: fields.warning }),
    })
    .where('id', '=', jobId)
    .where('status', '=', 'scraping');
}

/** Appending URLs to a finished batch makes it run again. */
export async function reopenJob(db: Db, jobId: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'scraping', completed_at: null, updated_at: new Date() })
    .where('id', '=', jobId)
    .execute();
}

export async function findJobByIdempotencyKey(db: Db, teamId: string, key: string): Promise<Job | undefined> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** A result kept with a job that its workflow completes later (an extract's merged answer). */
export async function storeJobResult(db: Db, jobId: string, result: Record<string, unknown>): Promise<void> {
  await db.updateTable('jobs').set({ result: JSON.stringify(result), updated_at: new Date() }).where('id', '=', jobId).execute();
}

/**
 * Stores a synchronous job's result and completes it in one statement, so a reader never sees
 * one without the other. A job the API already failed (its caller timed out) stays failed.
 */
export async function completeJobWithResult(db: Db, jobId: string, result: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ result: JSON.stringify(result), status: 'completed', updated_at: new Date(), completed_at: new Date() })
    .where('id', '=', jobId)
    .where('status', '=', 'scraping')
    .execute();
}

/**
 * Completes a running job only if none of its pages is still open, under the job row's lock, so
 * URLs appended at the same moment are never left queued in a completed job. Returns whether it
 * completed; false means there is more to scrape.
 */
export async function completeJobIfDrained(
  db: Db,
  jobId: string,
  fields: { warning?: string | null } = {},
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('jobs').select('id').where('id', '=', jobId).forUpdate().executeTakeFirst();
    const open = await trx
      .selectFrom('crawl_pages')
      .select('url_key')
      .where('job_id', '=', jobId)
      .where('status', 'in', ['queued', 'scraping'])
      .limit(1)
      .executeTakeFirst();
    if (open) return false;
    await finishJob(trx, jobId, 'completed', fields);
    return true;
  });
}

/** Runs `work` in a transaction holding the job row's lock (the lock completeJobIfDrained takes). */
export async function lockJobFor<T>(db: Db, jobId: string, work: (trx: Db, job: Job) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom('jobs').selectAll().where('id', '=', jobId).forUpdate().executeTakeFirstOrThrow();
    return work(trx, job);
  });
}

/** The team's jobs of `kind` still running, the given one included once it is written. */
export async function countRunningJobs(db: Db, teamId: string, kind: Job['kind']): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('team_id', '=', teamId)
    .where('kind', '=', kind)
    .where('status', '=', 'scraping')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether the job is still running: a job that ended (completed, failed, cancelled) spends nothing more. */
export async function jobIsRunning(db: Db, jobId: string): Promise<boolean> {
  const row = await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst();
  return row?.status === 'scraping';
}
