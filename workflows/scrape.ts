import { ApplicationFailure, setCurrentDetails } from '@temporalio/workflow';
import type { ScrapePageInput, ScrapePageResult } from '../activities/scrape-page.js';
import { localPageActivities } from './activities.js';

export type ScrapeWorkflowInput = ScrapePageInput;
export type ScrapeWorkflowResult = ScrapePageResult;

/**
 * A single synchronous scrape (POST /v2/scrape). It is a workflow, not a bare activity call, so
 * every scrape is visible in the Temporal UI and retried by the same page policy as crawls. Its
 * page is a local activity: the caller waits for it, and a scheduled activity's round trips
 * through the server were a third of the service's overhead on a static page.
 */
export async function scrapeWorkflow(input: ScrapeWorkflowInput): Promise<ScrapeWorkflowResult> {
  if (!input.url || !input.jobId) {
    throw ApplicationFailure.nonRetryable('scrapeWorkflow needs url and jobId', 'InvalidWorkflowInput');
  }
  setCurrentDetails(`Scraping ${input.url}`);
  const { scrapePage } = localPageActivities(input.options.timeout);
  const result = await scrapePage(input);
  setCurrentDetails(`Scraped ${input.url}: HTTP ${result.statusCode}, document ${result.documentId}`);
  return result;
}
