/**
 * Change-tracking snapshots. Only the latest snapshot of another job is ever compared against, so
 * each (team, URL key, tag) keeps SNAPSHOTS_KEPT rows: the newest and the one it was compared
 * with, which a retry of the newest job compares against again.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

const SNAPSHOTS_KEPT = 2;

export interface SnapshotKey {
  teamId: string;
  urlKey: string;
  /** '' for untagged history. */
  tag: string;
}

export interface ChangeSnapshot {
  markdown: string;
  statusCode: number;
  scrapedAt: Date;
  /** The json mode's answer, when that mode ran on this snapshot. */
  extraction?: unknown;
  /** The response's ETag / Last-Modified, for a monitor's next conditional request. */
  validators?: { etag?: string; lastModified?: string };
}

/** The newest snapshot written by a job other than `jobId`. */
export async function findPreviousSnapshot(
  db: Db,
  key: SnapshotKey,
  jobId: string,
): Promise<ChangeSnapshot | undefined> {
  const row = await db
    .selectFrom('change_snapshots')
    .select(['markdown', 'status_code', 'scraped_at', 'extraction', 'etag', 'last_modified'])
    .where('team_id', '=', key.teamId)
    .where('url_key', '=', key.urlKey)
    .where('tag', '=', key.tag)
    .where('job_id', '<>', jobId)
    .orderBy('scraped_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return (
    row && {
      markdown: row.markdown,
      statusCode: row.status_code,
      scrapedAt: row.scraped_at,
      ...(row.extraction !== null && { extraction: row.extraction }),
      ...((row.etag !== null || row.last_modified !== null) && {
        validators: { ...(row.etag !== null && { etag: row.etag }), ...(row.last_modified !== null && { lastModified: row.last_modified }) },
      }),
    }
  );
}

/** Records what `jobId` saw (a retry replaces it), then drops the key's older snapshots. */
export async function recordSnapshot(
  db: Db,
  key: SnapshotKey,
  jobId: string,
  seen: { markdown: string; statusCode: number; extraction?: unknown; validators?: { etag?: string; lastModified?: string } },
): Promise<void> {
  const extraction = seen.extraction === undefined ? null : JSON.stringify(seen.extraction);
  const etag = seen.validators?.etag ?? null;
  const lastModified = seen.validators?.lastModified ?? null;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('change_snapshots')
      .values({
        team_id: key.teamId,
        url_key: key.urlKey,
        tag: key.tag,
        job_id: jobId,
        markdown: seen.markdown,
        status_code: seen.statusCode,
        extraction,
        etag,
        last_modified: lastModified,
      })
      .onConflict((oc) =>
        oc
          .columns(['team_id', 'url_key', 'tag', 'job_id'])
          .doUpdateSet({ markdown: seen.markdown, status_code: seen.statusCode, extraction, etag, last_modified: lastModified, scraped_at: sql`now()` }),
      )
      .execute();
    await trx
      .deleteFrom('change_snapshots')
      .where('team_id', '=', key.teamId)
      .where('url_key', '=', key.urlKey)
      .where('tag', '=', key.tag)
      .where(
        'job_id',
        'not in',
        trx
          .selectFrom('change_snapshots')
          .select('job_id')
          .where('team_id', '=', key.teamId)
          .where('url_key', '=', key.urlKey)
          .where('tag', '=', key.tag)
          .orderBy('scraped_at', 'desc')
          .limit(SNAPSHOTS_KEPT),
      )
      .execute();
  });
}
