/**
 * The retention purge, run by the `trawl-purge-expired` Temporal Schedule (worker/schedules.ts):
 * expired jobs with everything they own, old tombstones, stored media past its own, shorter
 * retention, and the content of zero-data-retention jobs nobody collected. Every delete is
 * idempotent, so an overlapping or retried run only finds less to do.
 */
import { Context } from '@temporalio/activity';
import { deleteExpiredMedia } from '../db/repositories/media.js';
import { deleteStaleParseUploads } from '../db/repositories/parse-uploads.js';
import { purgeExpiredChecks } from '../db/repositories/monitors.js';
import { deleteOldTombstones, purgeExpiredJobs } from '../db/repositories/retention.js';
import { purgeSearchIndex } from '../db/repositories/search-index.js';
import { purgeUndeliveredZdrContent, ZDR_COLLECTION_WINDOW_MS } from '../db/repositories/zero-data-retention.js';
import { deleteAllClosedZdrRuns } from '../lib/zero-data-retention-history.js';
import type { ActivityDeps } from './deps.js';

export interface PurgeExpiredResult {
  jobs: number;
  tombstones: number;
  media: number;
  /** Search index entries of pages scraped longer ago than results are kept. */
  indexed: number;
  /** Monitor checks past their retention. */
  monitorChecks: number;
  /** Zero-data-retention jobs whose undelivered content was forgotten. */
  zeroDataRetention: number;
  /** Parse uploads left behind by an API that stopped before its parse ran (they live for one). */
  parseUploads: number;
}

/** MEDIA_RETENTION_HOURS's default, for deps built without a config (tests). */
const DEFAULT_MEDIA_RETENTION_HOURS = 24;
/** RESULT_RETENTION_HOURS's default, likewise. */
const DEFAULT_RESULT_RETENTION_HOURS = 720;

export function createPurgeExpiredActivity(deps: ActivityDeps) {
  return async function purgeExpired(): Promise<PurgeExpiredResult> {
    const jobs = await purgeExpiredJobs(deps.db);
    const tombstones = await deleteOldTombstones(deps.db);
    const media = await deleteExpiredMedia(deps.db, deps.mediaRetentionHours ?? DEFAULT_MEDIA_RETENTION_HOURS);
    const retentionMs = (deps.resultRetentionHours ?? DEFAULT_RESULT_RETENTION_HOURS) * 3_600_000;
    const indexed = await purgeSearchIndex(deps.db, new Date(Date.now() - retentionMs));
    const monitorChecks = await purgeExpiredChecks(deps.db);
    const zeroDataRetention = await purgeUndeliveredZdrContent(deps.db, new Date(Date.now() - ZDR_COLLECTION_WINDOW_MS));
    // A parse holds its upload for its own timeout at most; an hour covers any still running.
    const parseUploads = await deleteStaleParseUploads(deps.db, 1);
    return { jobs, tombstones, media, indexed, monitorChecks, zeroDataRetention, parseUploads };
  };
}

/**
 * The purge's Temporal part: the histories of closed zero-data-retention workflows that the API
 * did not delete when it delivered them (a job nobody read to its end, or an API that stopped).
 * How many runs.
 */
export function createDeleteZdrHistoriesActivity() {
  return async function deleteZdrHistories(): Promise<number> {
    return deleteAllClosedZdrRuns(Context.current().client);
  };
}
