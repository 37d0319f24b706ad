/**
 * The `question` format, and Firecrawl's deprecated `query`: the model's answer about the page in
 * `answer` (`query` in `directQuote` mode answers with the page's own lines). +4 credits, as
 * Firecrawl charges.
 */
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { answerQuestion, pickLines } from '../../../llm/page-answers.js';
import type { EnrichStep } from './step.js';
import { addWarning, markdownOf, modelFor } from './model.js';

export const answerFormatStep: EnrichStep = {
  name: 'answer',
  appliesTo: (outputs) => outputs.answer !== undefined,
  async run({ deps, owner, url, outputs, outcome, signal }) {
    const { question, quote } = outputs.answer!;
    const markdown = markdownOf(outcome);
    if (!markdown.trim()) {
      addWarning(outcome, 'The page has no text to answer the question from.');
      return 0;
    }
    const model = modelFor(deps, owner, 'question');
    const request = { markdown, question, url, signal };
    const { value, warning } = quote ? await pickLines(model, { ...request, purpose: 'answer' }) : await answerQuestion(model, request);
    outcome.document.answer = value;
    addWarning(outcome, warning);
    return CREDIT_COSTS.questionFormat;
  },
};
