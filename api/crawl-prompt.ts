/**
 * Crawl options from a natural-language prompt, for `POST /v2/crawl/params-preview` and for a
 * crawl sent with `prompt`. The model is asked in a workflow (its call is an activity, retried and
 * visible like every job); its suggestion is checked key by key with the crawl schema itself, and
 * what fails is dropped and named, so neither path ever sees an option a crawl would refuse.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { crawlParamsPreviewWorkflow } from '../workflows/index.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';
import { crawlerOptionsShape } from './schemas/crawl.js';
import { workflowFailure } from './workflow-result.js';
import { paramsPreviewWorkflowId } from '../lib/workflow-ids.js';

const PREVIEWABLE = [
  'includePaths',
  'excludePaths',
  'maxDiscoveryDepth',
  'crawlEntireDomain',
  'allowExternalLinks',
  'allowSubdomains',
  'sitemap',
  'ignoreQueryParameters',
  'deduplicateSimilarURLs',
  'delay',
  'limit',
] as const satisfies readonly (keyof typeof crawlerOptionsShape)[];

const PREVIEW_TIMEOUT_MS = 120_000;

/** Firecrawl's words for a prompt that yields no options. */
export const notUnderstood = () => httpError('BAD_REQUEST', 'Failed to process natural language prompt. Please try rephrasing.');

export interface SuggestedCrawlOptions {
  options: Record<string, unknown>;
  /** Keys the model suggested that the crawl schema refused. */
  dropped: string[];
}

export async function suggestCrawlOptions(deps: AppDeps, req: { teamId: string; url: string; prompt: string }): Promise<SuggestedCrawlOptions> {
  let suggested: Record<string, unknown>;
  try {
    ({ options: suggested } = await deps.temporal.workflow.execute(crawlParamsPreviewWorkflow, {
      workflowId: paramsPreviewWorkflowId(randomUUID()),
      taskQueue: deps.config.temporal.taskQueue,
      args: [req],
      workflowExecutionTimeout: PREVIEW_TIMEOUT_MS,
    }));
  } catch (err) {
    const failure = workflowFailure(err, notUnderstood);
    if ('code' in failure && failure.code === 'LLM_OUTPUT_INVALID') throw notUnderstood();
    throw failure;
  }
  return checkedOptions(suggested);
}

function checkedOptions(suggested: Record<string, unknown>): SuggestedCrawlOptions {
  const options: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(suggested)) {
    const shape = (PREVIEWABLE as readonly string[]).includes(key) ? crawlerOptionsShape[key as (typeof PREVIEWABLE)[number]] : undefined;
    const parsed = shape && z.object({ [key]: shape }).safeParse({ [key]: value });
    if (parsed?.success) options[key] = (parsed.data as Record<string, unknown>)[key];
    else dropped.push(key);
  }
  return { options, dropped };
}
