/** What the model steps share: the configured model, or a clear error when there is none. */
import { NonRetryablePageError } from '../../../lib/errors.js';
import type { ModelClient } from '../../../llm/model-client.js';
import type { ActivityDeps } from '../../deps.js';
import type { ScrapeOutcome } from '../../../scraper/scrape.js';

export function modelOf(deps: ActivityDeps): ModelClient {
  // The API refuses these formats without a model; a worker configured apart from its API lands here.
  if (!deps.llm) throw new NonRetryablePageError('LLM_NOT_CONFIGURED', 'This worker has no language model configured');
  return deps.llm;
}

export function markdownOf(outcome: ScrapeOutcome): string {
  return typeof outcome.document.markdown === 'string' ? outcome.document.markdown : '';
}

/** Adds a warning to the Document, beside any it has. */
export function addWarning(outcome: ScrapeOutcome, warning: string | undefined): void {
  if (!warning) return;
  const existing = outcome.document.warning;
  outcome.document.warning = typeof existing === 'string' && existing ? `${existing} ${warning}` : warning;
}
