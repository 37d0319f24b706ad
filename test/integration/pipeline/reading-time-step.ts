/**
 * The worked example of README "Extending Trawl": an enrich step that adds an estimated reading
 * time to every page that asked for markdown, at one extra credit. Shown there as
 * activities/page/enrich/reading-time.ts; kept here because Trawl does not ship it.
 */
import type { EnrichStep } from '../../../activities/page/enrich/step.js';

const WORDS_PER_MINUTE = 230;

export const readingTimeStep: EnrichStep = {
  name: 'readingTime',
  appliesTo: (outputs) => outputs.markdown,
  async run({ outcome }) {
    const markdown = String(outcome.document.markdown ?? '');
    const words = markdown.split(/\s+/).filter(Boolean).length;
    outcome.document.metadata.readingTimeMinutes = Math.max(1, Math.round(words / WORDS_PER_MINUTE));
    return 1;
  },
};
