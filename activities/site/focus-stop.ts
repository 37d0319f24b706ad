/**
 * When a query-directed crawl stops (lib/crawl/relevance.ts decides; db/repositories/crawl-focus.ts
 * records). Its stop reason is recorded once: the first recorded stays.
 */
import { readFocus, recordStop } from '../../db/repositories/crawl-focus.js';
import type { Db } from '../../db/connect.js';
import { earlyStop, finalStop } from '../../lib/crawl/relevance.js';
import type { FocusSettings } from '../../lib/crawl/settings.js';

/**
 * After a page settles: stops the crawl's claims once the pages so far cover the query or it has
 * saturated. Pages in flight still settle; a worker lost before this runs leaves the decision to
 * the next page, or to the finish (finishFocus).
 */
export async function stopIfDone(db: Db, jobId: string, focus: FocusSettings): Promise<void> {
  const row = await readFocus(db, jobId);
  if (!row || row.stopReason) return;
  const reason = earlyStop(row, focus);
  if (reason) await recordStop(db, jobId, reason);
}

/** When nothing is left to claim: why, if no early stop was recorded (the limit, or no relevant link left). */
export async function finishFocus(db: Db, jobId: string, focus: FocusSettings, limit: number): Promise<void> {
  const row = await readFocus(db, jobId);
  if (!row || row.stopReason) return;
  await recordStop(db, jobId, finalStop(row, focus, limit));
}
