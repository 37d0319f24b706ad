/**
 * What a monitor's check runs for each target, decided once when the monitor is written (the API
 * parses the target with the crawl and batch schemas) and stored beside the target: a check then
 * only has to create the page job and start it. Pure types and rules.
 */
import type { MONITOR_NOTIFY } from '../../contracts/change-detection.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import type { CrawlerSettings } from '../crawl/settings.js';
import { CREDIT_COSTS } from '../credits.js';

/** Which changes of a page target are reported (contracts/change-detection.ts); absent is `substantive`. */
type Notify = { notify?: (typeof MONITOR_NOTIFY)[number] };

export type TargetPlan =
  | ({ kind: 'batch_scrape'; pages: { url: string; urlKey: string }[]; scrapeOptions: ScrapeOptions } & Notify)
  | ({ kind: 'crawl'; crawler: CrawlerSettings; scrapeOptions: ScrapeOptions; maxConcurrency?: number; delaySecs?: number } & Notify)
  | SearchPlan;

/** A search target: each check runs the queries and reports the results it has not seen before. */
export interface SearchPlan {
  kind: 'search';
  queries: string[];
  /** Google's `tbs` for the target's searchWindow (lib/search/tbs.ts). */
  tbs?: string;
  includeDomains: string[];
  excludeDomains: string[];
  maxResults: number;
}

/** searchWindow as the nearest `tbs` a provider understands: an hour is the finest. */
export const SEARCH_WINDOW_TBS: Readonly<Record<string, string>> = { '5m': 'qdr:h', '15m': 'qdr:h', '1h': 'qdr:h', '6h': 'qdr:d', '24h': 'qdr:d', '7d': 'qdr:w' };

export const DEFAULT_SEARCH_MAX_RESULTS = 10;

/** What a search target's queries cost at most: search's price per ten results, per query. */
export function searchCredits(queries: number, maxResults: number): number {
  return queries * CREDIT_COSTS.searchPerTenResults * Math.ceil(maxResults / 10);
}

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
  return plans.reduce((sum, p) => {
    if (p.kind === 'search') return sum + searchCredits(p.queries.length, p.maxResults);
    return sum + (p.kind === 'crawl' ? p.crawler.limit : p.pages.length) * creditsPerPage(p.scrapeOptions);
  }, 0);
}

/** A monitor's stored `notification.email`, when it is on and has someone to write to. */
export interface EmailNotification {
  recipients: string[];
  includeDiffs: boolean;
}

export function emailNotificationOf(notification: unknown): EmailNotification | undefined {
  const email = (notification as { email?: { enabled?: boolean; recipients?: string[]; includeDiffs?: boolean } } | null)?.email;
  if (!email || email.enabled === false || !email.recipients?.length) return undefined;
  return { recipients: email.recipients, includeDiffs: email.includeDiffs === true };
}
