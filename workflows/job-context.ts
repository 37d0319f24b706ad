/**
 * Workflow interceptors (worker/create-worker.ts registers this module): the job id and team on
 * every log line of a job's workflow, and in a header on every activity it schedules (local ones
 * too), so the activity's lines carry them too. The team comes from the TeamId search attribute
 * the API starts every job with, which Temporal keeps across continue-as-new.
 */
import { defaultPayloadConverter, workflowInfo, type Headers, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { JOB_CONTEXT_HEADER, jobIdOfWorkflow, type JobContext } from '../lib/job-context.js';
import { TeamIdAttribute } from './search-attributes.js';

function currentJob(): JobContext | undefined {
  const info = workflowInfo();
  const jobId = jobIdOfWorkflow(info.workflowId);
  const teamId = info.typedSearchAttributes.get(TeamIdAttribute);
  return jobId && teamId ? { jobId, teamId } : undefined;
}

function withJobHeader(headers: Headers, job: JobContext | undefined): Headers {
  return job ? { ...headers, [JOB_CONTEXT_HEADER]: defaultPayloadConverter.toPayload(job) } : headers;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let job: JobContext | undefined;
  const jobOnce = () => (job ??= currentJob());
  return {
    outbound: [
      {
        getLogAttributes: (input, next) => next({ ...input, ...jobOnce() }),
        scheduleActivity: (input, next) => next({ ...input, headers: withJobHeader(input.headers, jobOnce()) }),
        // A synchronous scrape's page runs as a local activity (workflows/scrape.ts).
        scheduleLocalActivity: (input, next) => next({ ...input, headers: withJobHeader(input.headers, jobOnce()) }),
      },
    ],
  };
};
