/** What an enrich step is (activities/page/enrich/steps.ts runs them). */
import type { ChangeDetection } from '../../../contracts/change-detection.js';
import type { PageOutputs } from '../../../contracts/page-outputs.js';
import type { ScrapeOptions } from '../../../contracts/scrape-options.js';
import type { ScrapeOutcome } from '../../../scraper/scrape.js';
import type { ActivityDeps } from '../../deps.js';
import type { PageOwner } from '../fetch.js';

export interface EnrichContext {
  deps: ActivityDeps;
  owner: PageOwner;
  /** The URL fetched. */
  url: string;
  options: ScrapeOptions;
  outputs: PageOutputs;
  /** The fetched page; steps add their fields to `outcome.document`. */
  outcome: ScrapeOutcome;
  /** True when the page came from the team's cache rather than a fetch. */
  fromCache: boolean;
  /** Aborts at the page's deadline or on cancellation. */
  signal: AbortSignal;
  /** Set for a monitor's pages only. */
  changeDetection?: ChangeDetection;
}

export interface EnrichStep {
  /** Names the step in logs and errors. */
  name: string;
  appliesTo(outputs: PageOutputs, options: ScrapeOptions): boolean;
  /** Resolves to the extra credits the step cost (0 or nothing when free). */
  run(ctx: EnrichContext): Promise<number | void>;
}
