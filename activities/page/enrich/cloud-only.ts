/**
 * Scrape options of Firecrawl's cloud products (contracts/cloud-only.ts) asked for on this page:
 * the Document's warning says they were not done. Free, no I/O.
 */
import { notDoneWarnings } from '../../../contracts/cloud-only.js';
import type { EnrichStep } from './step.js';
import { addWarning } from './model.js';

export const cloudOnlyStep: EnrichStep = {
  name: 'cloudOnly',
  appliesTo: (_outputs, options) => notDoneWarnings('scrapeOptions', options) !== undefined,
  async run({ options, outcome }) {
    addWarning(outcome, notDoneWarnings('scrapeOptions', options));
    return 0;
  },
};
