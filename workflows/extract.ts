import { continueAsNew } from '@temporalio/workflow';
import type { ExpandExtractUrlsInput } from '../activities/extract.js';
import { bookkeepingActivities, pageActivities } from './activities.js';
import { runPageJob, type PageJobInput, type PageJobResult } from './page-job.js';

/** Glob expansion gets this long at most (within the job's own deadline). */
const EXPAND_TIMEOUT_MS = 120_000;

export type ExtractWorkflowInput = Omit<PageJobInput, 'crawler'> & {
  extract: {
    /** The user's JSON Schema; pages answer a relaxed copy (nothing required), the merge must match this. */
    schema?: Record<string, unknown>;
    /** `/*` URLs to expand through map before the pages run. */
    expand?: Omit<ExpandExtractUrlsInput, 'jobId' | 'teamId' | 'deadline' | 'threatProtection'>;
  };
};
export type ExtractWorkflowResult = PageJobResult;

/**
 * POST /v2/extract: the API put the plain URLs in the frontier; `/*` URLs are expanded first.
 * Every page is scraped with a `json` format (the page loop of crawls and batches), then the
 * pages' answers are merged into the job's one answer, checked against the schema.
 */
export async function extractWorkflow(input: ExtractWorkflowInput): Promise<ExtractWorkflowResult> {
  const { expand, schema } = input.extract;
  return runPageJob(input, (next) => continueAsNew<typeof extractWorkflow>({ ...input, ...next }), {
    seed: async () => {
      if (!expand || (expand.globs.length === 0 && !expand.searchPrompt)) return;
      const deadline = Math.min(input.deadlineAt ?? Infinity, Date.now() + EXPAND_TIMEOUT_MS);
      await pageActivities(deadline - Date.now()).expandExtractUrls({ jobId: input.jobId, teamId: input.teamId, deadline, threatProtection: input.scrapeOptions.threatProtection, ...expand });
    },
    beforeComplete: () => bookkeepingActivities.mergeExtractionResults({ jobId: input.jobId, schema }),
  });
}
