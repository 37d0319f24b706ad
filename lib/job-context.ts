/**
 * The job a workflow works for, as its log lines carry it. Job workflows compute it
 * (workflows/job-context.ts) and hand it to every activity they schedule in a header, which the
 * worker's activity interceptor adds to the activity's log lines (worker/telemetry.ts).
 */
export interface JobContext {
  jobId: string;
  teamId: string;
}

export const JOB_CONTEXT_HEADER = 'trawl-job';

/** A job's workflow id is `<kind>-<job id>` (api/job-start.ts); other workflows (the purge) have none. */
const JOB_ID_AT_END = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function jobIdOfWorkflow(workflowId: string): string | undefined {
  return JOB_ID_AT_END.exec(workflowId)?.[1];
}
