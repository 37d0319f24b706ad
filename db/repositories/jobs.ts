import type { Db } from '../connect.js';
import type { Job, JobStatus, NewJob } from '../schema.js';

export async function insertJob(db: Db, job: NewJob): Promise<void> {
  await db.insertInto('jobs').values(job).execute();
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
