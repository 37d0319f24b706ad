import { continueAsNew } from '@temporalio/workflow';
import { runPageJob, type PageJobInput, type PageJobResult } from './page-job.js';

export type CrawlWorkflowInput = PageJobInput & { crawler: NonNullable<PageJobInput['crawler']> };
export type CrawlWorkflowResult = PageJobResult;

/** POST /v2/crawl: seed the frontier from robots.txt, sitemaps and the start page, then walk it. */
export async function crawlWorkflow(input: CrawlWorkflowInput): Promise<CrawlWorkflowResult> {
  return runPageJob(input, (next) => continueAsNew<typeof crawlWorkflow>(next as CrawlWorkflowInput));
}
