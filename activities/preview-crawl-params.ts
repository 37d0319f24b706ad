/** Crawl options suggested by the model for a prompt (`POST /v2/crawl/params-preview`). */
import { Context } from '@temporalio/activity';
import { crawlOptionsFromPrompt } from '../llm/crawl-options.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { modelFor } from './page/enrich/model.js';

export interface PreviewCrawlParamsInput {
  teamId: string;
  url: string;
  prompt: string;
}

export interface PreviewCrawlParamsResult {
  /** As the model gave them; the API validates them before anyone sees them. */
  options: Record<string, unknown>;
}

export function createPreviewCrawlParamsActivity(deps: ActivityDeps) {
  return async function previewCrawlParams(input: PreviewCrawlParamsInput): Promise<PreviewCrawlParamsResult> {
    const { cancellationSignal: signal } = Context.current();
    return atActivityBoundary(async () => {
      const { options } = await crawlOptionsFromPrompt(modelFor(deps, { teamId: input.teamId, jobId: null }, 'crawl-prompt'), { url: input.url, prompt: input.prompt, signal });
      return { options };
    });
  };
}
