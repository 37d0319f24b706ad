import { continueAsNew } from '@temporalio/workflow';
import type { RunSearchInput } from '../activities/search.js';
import { pageActivities } from './activities.js';
import { runPageJob, type PageJobInput, type PageJobResult } from './page-job.js';

export type SearchWorkflowInput = Omit<PageJobInput, 'crawler'> & {
  search: Omit<RunSearchInput, 'jobId' | 'teamId' | 'deadline'>;
};
export type SearchWorkflowResult = PageJobResult;

/**
 * POST /v2/search. Without formats the search activity is the whole job: it stores the results
 * and completes it. With them, the provider call is the job's seed and the results to scrape are
 * its pages, scraped by the page loop of batches (the team's concurrency, credits and cache
 * apply). The request's `timeout` is the job's deadline; the API waits and answers from the rows.
 */
export async function searchWorkflow(input: SearchWorkflowInput): Promise<SearchWorkflowResult> {
  const deadline = input.deadlineAt ?? Date.now() + 60_000;
  if (!input.search.scrape) {
    // One activity that stores the results and completes the job: no page loop to run.
    await pageActivities(deadline - Date.now()).runSearch({ jobId: input.jobId, teamId: input.teamId, deadline, ...input.search });
    return { status: 'completed', completed: 0, failed: 0, creditsUsed: 0 };
  }
  return runPageJob(input, (next) => continueAsNew<typeof searchWorkflow>({ ...input, ...next }), {
    seed: async () => {
      await pageActivities(deadline - Date.now()).runSearch({ jobId: input.jobId, teamId: input.teamId, deadline, ...input.search });
    },
  });
}
