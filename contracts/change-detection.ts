/**
 * How a monitor's pages compare with their previous check, beyond a plain `changeTracking` format:
 * it travels from the check workflow through the page job (workflows/page-job-run.ts) to every
 * page of it (activities/page/pipeline.ts). User scrapes, crawls and batches never set it.
 */
export interface ChangeDetection {
  /** Send the previous response's ETag / Last-Modified; a 304 is `same`, with nothing converted or stored. */
  conditional: boolean;
  /** Changes only in timestamps, counters, session tokens or ad paragraphs are `same` (scraper/change-tracking/noise.ts). */
  ignoreNoise: boolean;
}
