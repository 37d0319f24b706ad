/**
 * `onlyCleanContent`: a model pass over the page's markdown that takes out the boilerplate
 * main-content selection left in, before anything else reads it (redaction, change tracking, the
 * model formats). Free like Firecrawl's; its tokens go to the ledger.
 */
import { readsMarkdown } from '../../../contracts/page-outputs.js';
import { cleanMarkdown } from '../../../llm/page-features.js';
import type { EnrichStep } from './step.js';
import { addWarning, markdownOf, modelFor } from './model.js';

export const cleanContentStep: EnrichStep = {
  name: 'onlyCleanContent',
  // Without markdown to return or to read there is nothing to clean.
  appliesTo: (outputs, options) => options.onlyCleanContent && (outputs.markdown || readsMarkdown(outputs)),
  async run({ deps, owner, outcome, signal }) {
    const markdown = markdownOf(outcome);
    if (!markdown.trim()) return 0;
    const { value, warning } = await cleanMarkdown(modelFor(deps, owner, 'onlyCleanContent'), markdown, signal);
    outcome.document.markdown = value;
    addWarning(outcome, warning);
    return 0;
  },
};
