/**
 * Log lines of a zero-data-retention job carry no URL or content. Trawl's own lines name ids only;
 * the Temporal SDK's line for a failed activity carries the error, whose message and details can
 * name the page's URL or host. The worker marks a ZDR activity's lines (worker/telemetry.ts) and
 * its logger passes them through `scrubZdrMeta` first.
 */

/** Whether an activity's input is a ZDR page's (scrapePage, crawlPage, crawlPages). */
export function isZdrActivityInput(input: unknown): boolean {
  if (!input || typeof input !== 'object') return false;
  const { options, scrapeOptions } = input as { options?: { zeroDataRetention?: unknown }; scrapeOptions?: { zeroDataRetention?: unknown } };
  return options?.zeroDataRetention === true || scrapeOptions?.zeroDataRetention === true;
}

/** A line's fields with every error reduced to its name and code; lines not marked ZDR pass unchanged. */
export function scrubZdrMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta || meta.zeroDataRetention !== true) return meta;
  return Object.fromEntries(
    Object.entries(meta).map(([key, value]) => {
      if (!value || typeof value !== 'object' || !('message' in value)) return [key, value];
      const { name, code } = value as { name?: unknown; code?: unknown };
      return [key, { name: typeof name === 'string' ? name : 'Error', ...(typeof code === 'string' && { code }), message: '[zero data retention]' }];
    }),
  );
}
