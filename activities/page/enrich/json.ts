/** The `json` format: the page's markdown as structured data (with the prompt-injection check first, when asked). */
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { checkPromptInjection, extractJson } from '../../../llm/page-features.js';
import type { EnrichStep } from './step.js';
import { addWarning, markdownOf, modelFor } from './model.js';

export const jsonFormatStep: EnrichStep = {
  name: 'json',
  appliesTo: (outputs) => outputs.json !== undefined,
  async run({ deps, owner, outputs, outcome, signal }) {
    const model = modelFor(deps, owner, 'json');
    const format = outputs.json!;
    const markdown = markdownOf(outcome);
    let credits: number = CREDIT_COSTS.jsonFormat;
    if (format.checkPromptInjection) {
      await checkPromptInjection(model, markdown, signal);
      credits += CREDIT_COSTS.promptInjectionCheck;
    }
    const { value, warning } = await extractJson(model, {
      markdown,
      prompt: format.prompt,
      schema: format.schema,
      systemPrompt: format.systemPrompt,
      signal,
    });
    outcome.document.json = value;
    addWarning(outcome, warning);
    return credits;
  },
};
