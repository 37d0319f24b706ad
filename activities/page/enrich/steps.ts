/**
 * The pipeline's enrich stage: steps that add to a fetched Document before it is stored, run in
 * the order listed, for scrapes, crawl pages and batch pages alike. Each step says when it applies
 * and returns the credits it costs beyond the page's own.
 *
 * To add one (an LLM format, a classifier): write `activities/page/enrich/<step>.ts` exporting an
 * EnrichStep (activities/page/enrich/step.ts) and list it in ENRICH_STEPS. The README's
 * "Extending Trawl" section walks through an example.
 */
import { answerFormatStep } from './answer.js';
import { changeTrackingStep } from './change-tracking.js';
import { cleanContentStep } from './clean-content.js';
import { cloudOnlyStep } from './cloud-only.js';
import { highlightsFormatStep } from './highlights.js';
import { jsonFormatStep } from './json.js';
import { redactPiiOutputsStep, redactPiiStep } from './redact-pii.js';
import { summaryFormatStep } from './summary.js';
import type { EnrichContext, EnrichStep } from './step.js';

export type { EnrichContext, EnrichStep } from './step.js';

export const ENRICH_STEPS: readonly EnrichStep[] = [
  cleanContentStep,
  redactPiiStep,
  changeTrackingStep,
  jsonFormatStep,
  summaryFormatStep,
  answerFormatStep,
  highlightsFormatStep,
  cloudOnlyStep,
  redactPiiOutputsStep,
];

/** Runs every step that applies; resolves to the credits they cost together. */
export async function enrich(ctx: EnrichContext, steps: readonly EnrichStep[]): Promise<number> {
  let credits = 0;
  for (const step of steps) {
    if (!step.appliesTo(ctx.outputs, ctx.options)) continue;
    credits += (await step.run(ctx)) ?? 0;
  }
  return credits;
}
