import { continueAsNew } from '@temporalio/workflow';
import { runPageJob, type PageJobInput, type PageJobResult } from './page-job.js';

export type BatchScrapeWorkflowInput = Omit<PageJobInput, 'crawler'>;
export type BatchScrapeWorkflowResult = PageJobResult;

/** POST /v2/batch/scrape: the API put the URLs in the frontier; scrape them, discovering nothing. */
export async function batchScrapeWorkflow(input: BatchScrapeWorkflowInput): Promise<BatchScrapeWorkflowResult> {
  return runPageJob(input, (next) => continueAsNew<typeof batchScrapeWorkflow>(next));
}
