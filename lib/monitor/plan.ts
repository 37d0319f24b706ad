/**
 * What a monitor's check runs for each target, decided once when the monitor is written (the API
 * parses the target with the crawl and batch schemas) and stored beside the target: a check then
 * only has to create the page job and start it. Pure types and rules.
 */
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import type { CrawlerSettings } from '../crawl/settings.js';
import { CREDIT_COSTS } from '../credits.js';

export type TargetPlan =
  | { kind: 'batch_scrape'; pages: { url: string; urlKey: string }[]; scrapeOptions: ScrapeOptions }
  | { kind: 'crawl'; crawler: CrawlerSettings; scrapeOptions: ScrapeOptions; maxConcurrency?: number; delaySecs?: number };

/** A target as stored: the wire form read back to clients, and its plan. */
export interface StoredTarget {
  target: Record<string, unknown> & { id: string; type: 'scrape' | 'crawl' | 'search' };
  plan: TargetPlan;
}

/** Each monitor keeps its own change history: the changeTracking tag of its pages. */
export function monitorTag(monitorId: string, targetId: string): string {
  return `monitor:${monitorId}:${targetId}`;
}

/**
 * The target's scrape options with the monitor's change tracking: markdown (what is compared) and
 * a changeTracking format on the monitor's own tag, keeping the modes the user asked for.
 */
export function monitorScrapeOptions(options: ScrapeOptions, tag: string): ScrapeOptions {
  const asked = options.formats.find((f) => f.type === 'changeTracking');
  const modes = asked?.type === 'changeTracking' && asked.modes.length > 0 ? asked.modes : (['git-diff'] as const);
  const others = options.formats.filter((f) => f.type !== 'changeTracking' && f.type !== 'markdown');
  const tracking = { ...(asked?.type === 'changeTracking' ? asked : { type: 'changeTracking' as const, modes: [] }), modes: [...modes], tag };
  return { ...options, formats: [{ type: 'markdown' }, ...others, tracking] as ScrapeOptions['formats'] };
}

/** Credits one page of these options costs when it fetches (lib/credits.ts's page price plus its model formats). */
export function creditsPerPage(options: ScrapeOptions): number {
  let credits = CREDIT_COSTS.page;
  for (const format of options.formats) {
    if (format.type === 'json') credits += CREDIT_COSTS.jsonFormat;
    if (format.type === 'summary') credits += CREDIT_COSTS.summaryFormat;
    if (format.type === 'changeTracking' && format.modes.includes('json')) credits += CREDIT_COSTS.changeTrackingJson;
  }
  return credits;
}

/** The most one check can cost: every page fetched at full price. */
export function creditsPerCheck(plans: readonly TargetPlan[]): number {
  return plans.reduce((sum, p) => sum + (p.kind === 'crawl' ? p.crawler.limit : p.pages.length) * creditsPerPage(p.scrapeOptions), 0);
}
