/** Crawl options suggested by the model for a prompt (`POST /v2/crawl/params-preview`). */
import { Context } from '@temporalio/activity';
import { toApplicationFailure } from '../lib/errors.js';
import { crawlOptionsFromPrompt } from '../llm/crawl-options.js';
import type { ActivityDeps } from './deps.js';
import { modelOf } from './page/enrich/model.js';

export interface PreviewCrawlParamsInput {
  url: string;
  prompt: string;
}

export interface PreviewCrawlParamsResult {
  /** As the model gave them; the API validates them before anyone sees them. */
  options: Record<string, unknown>;
}

export function createPreviewCrawlParamsActivity(deps: ActivityDeps) {
  return async function previewCrawlParams(input: PreviewCrawlParamsInput): Promise<PreviewCrawlParamsResult> {
    const ctx = Context.current();
    try {
      const { options } = await crawlOptionsFromPrompt(modelOf(deps), { ...input, signal: ctx.cancellationSignal });
      return { options };
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      throw toApplicationFailure(err);
    }
  };
}
