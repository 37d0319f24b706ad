/** Which request options only a real browser can honour (scraper/engine-choice.ts uses it to pick the engine). */
import type { PageOutputs } from './page-outputs.js';
import type { ScrapeOptions } from './scrape-options.js';

/** Options only a real browser can honour; the first one found is reported as the reason. */
export function browserRequiredBy(options: ScrapeOptions, outputs: PageOutputs): string | undefined {
  if (outputs.screenshot) return 'screenshot';
  if (outputs.branding) return 'branding';
  if (options.actions && options.actions.length > 0) return 'actions';
  if (options.waitFor > 0) return 'waitFor';
  if (options.mobile) return 'mobile';
  if (options.profile) return 'profile';
  return undefined;
}
