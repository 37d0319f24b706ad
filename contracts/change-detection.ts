/**
 * How a monitor's pages compare with their previous check, beyond a plain `changeTracking` format:
 * it travels from the check workflow through the page job (workflows/page-job-run.ts) to every
 * page of it (activities/page/pipeline.ts). User scrapes, crawls and batches never set it.
 */
/**
 * Kinds of change a block diff may count as noise (scraper/change-tracking/noise.ts): `prices` and
 * `moves` only when asked.
 */
export const NOISE_CATEGORIES = ['dates', 'counters', 'tokens', 'ads', 'prices', 'moves'] as const;
export type NoiseCategory = (typeof NOISE_CATEGORIES)[number];
/** What changes on every load of a page by itself. */
export const DEFAULT_NOISE: readonly NoiseCategory[] = ['dates', 'counters', 'tokens', 'ads'];

/** Which of a monitor target's changes are reported: only `substantive` ones (the default), or `any`. */
export const MONITOR_NOTIFY = ['substantive', 'any'] as const;

export interface ChangeDetection {
  /** Send the previous response's ETag / Last-Modified; a 304 is `same`, with nothing converted or stored. */
  conditional: boolean;
  /**
   * A page whose block diff has no substantive change is `same` (its noise categories are the
   * changeTracking format's `noise`, by default DEFAULT_NOISE): a target's `notify: "substantive"`.
   */
  ignoreNoise: boolean;
}
