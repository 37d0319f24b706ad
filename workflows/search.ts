import { continueAsNew } from '@temporalio/workflow';
import type { RunSearchInput } from '../activities/search.js';
import { pageActivities } from './activities.js';
import { runPageJob, type PageJobInput, type PageJobResult } from './page-job.js';

export type SearchWorkflowInput = Omit<PageJobInput, 'crawler'> & {
  search: Omit<RunSearchInput, 'jobId' | 'teamId' | 'deadline'>;
};
export type SearchWorkflowResult = PageJobResult;

/**
 * POST /v2/search: the provider call is the job's seed, and the results to scrape are its pages,
 * scraped by the page loop of batches (the team's concurrency, credits and cache apply). The
 * request's `timeout` is the job's deadline. The API waits and answers from the job's rows.
 */
export async function searchWorkflow(input: SearchWorkflowInput): Promise<SearchWorkflowResult> {
  const deadline = input.deadlineAt ?? Date.now() + 60_000;
  return runPageJob(input, (next) => continueAsNew<typeof searchWorkflow>({ ...input, ...next }), {
    seed: async () => {
      await pageActivities(deadline - Date.now()).runSearch({ jobId: input.jobId, teamId: input.teamId, deadline, ...input.search });
    },
  });
}
