/**
 * The `highlights` format: the page's own lines that answer a query, picked by the model, in
 * `highlights`. +4 credits, as Firecrawl charges.
 */
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { pickLines } from '../../../llm/page-answers.js';
import type { EnrichStep } from './step.js';
import { addWarning, markdownOf, modelFor } from './model.js';

export const highlightsFormatStep: EnrichStep = {
  name: 'highlights',
  appliesTo: (outputs) => outputs.highlights !== undefined,
  async run({ deps, owner, url, outputs, outcome, signal }) {
    const markdown = markdownOf(outcome);
    if (!markdown.trim()) {
      addWarning(outcome, 'The page has no text to pick highlights from.');
      return 0;
    }
    const { value, warning } = await pickLines(modelFor(deps, owner, 'highlights'), {
      markdown,
      question: outputs.highlights!.query,
      url,
      signal,
      purpose: 'highlights',
    });
    outcome.document.highlights = value;
    addWarning(outcome, warning);
    return CREDIT_COSTS.highlightsFormat;
  },
};
