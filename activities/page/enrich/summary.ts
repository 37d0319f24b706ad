/** The `summary` format: a concise summary of the page's main content. */
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { summarize } from '../../../llm/page-features.js';
import type { EnrichStep } from './step.js';
import { addWarning, markdownOf, modelFor } from './model.js';

export const summaryFormatStep: EnrichStep = {
  name: 'summary',
  appliesTo: (outputs) => outputs.summary,
  async run({ deps, owner, outcome, signal }) {
    const markdown = markdownOf(outcome);
    if (!markdown.trim()) {
      addWarning(outcome, 'The page has no text to summarize.');
      return 0;
    }
    const { value, warning } = await summarize(modelFor(deps, owner, 'summary'), markdown, signal);
    outcome.document.summary = value;
    addWarning(outcome, warning);
    return CREDIT_COSTS.summaryFormat;
  },
};
