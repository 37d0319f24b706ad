/**
 * The `changeTracking` field of a Document: how the page's markdown compares with the team's
 * previous scrape of the same URL under the same tag. Pure; the activity loads and stores the
 * snapshots.
 *
 * - `new`: no previous snapshot. `removed`: the page now answers 404 or 410. Otherwise `same` or
 *   `changed` by exact markdown comparison.
 * - `visibility` is always `visible`: Firecrawl reports `hidden` for pages a crawl reached without
 *   discovering them by link or sitemap, and Trawl only ever scrapes pages it was given or
 *   discovered, so it has no such pages.
 * - The git-diff is only present for `changed`. The `json` mode's field changes need the model,
 *   so the enrich step (activities/page/enrich/change-tracking.ts) adds them.
 * - The `blocks` mode (a Trawl extension, block-diff.ts) adds each block's change and whether it
 *   is noise or substantive. A monitor that reports substantive changes only (`ignoreNoise`)
 *   calls a page whose block diff has none `same`, whatever its modes.
 */
import { blockDiff, type BlockDiff } from './block-diff.js';
import { gitDiff, type GitDiff } from './git-diff.js';
import type { JsonChanges } from './json-changes.js';
import type { NoiseCategory } from './noise.js';

export type ChangeStatus = 'new' | 'same' | 'changed' | 'removed';

export interface ChangeTracking {
  /** ISO time of the snapshot compared against; null for `new`. */
  previousScrapeAt: string | null;
  changeStatus: ChangeStatus;
  visibility: 'visible' | 'hidden';
  diff?: GitDiff;
  /** The json mode: fields whose extracted value changed; `{}` when none did. */
  json?: JsonChanges;
  /** The blocks mode. */
  blocks?: BlockDiff;
}

/** What the previous scrape saw; the activity loads it from db/repositories/change-history.ts. */
export interface PreviousScrape {
  markdown: string;
  scrapedAt: Date;
}

const GONE = new Set([404, 410]);

export function changeTracking(
  previous: PreviousScrape | undefined,
  current: { markdown: string; statusCode: number },
  modes: readonly string[],
  /** Monitors: changes only in noise (timestamps, counters, tokens, ads; see noise.ts) are `same`. */
  options: { ignoreNoise?: boolean; noise?: readonly NoiseCategory[] } = {},
): ChangeTracking {
  const result = { previousScrapeAt: previous?.scrapedAt.toISOString() ?? null, visibility: 'visible' as const };
  if (!previous) return { ...result, changeStatus: 'new' };
  if (GONE.has(current.statusCode)) return { ...result, changeStatus: 'removed' };
  if (previous.markdown === current.markdown) return { ...result, changeStatus: 'same' };
  const blocks = modes.includes('blocks') || options.ignoreNoise ? blockDiff(previous.markdown, current.markdown, options.noise) : undefined;
  if (options.ignoreNoise && blocks!.stats.substantive === 0) return { ...result, changeStatus: 'same' };
  return {
    ...result,
    changeStatus: 'changed',
    ...(modes.includes('git-diff') && { diff: gitDiff(previous.markdown, current.markdown) }),
    ...(modes.includes('blocks') && { blocks }),
  };
}
