/** GET /v2/team/activity's read: a team's recent jobs, newest first, by keyset (no offset scans). */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { JobKind } from '../schema.js';

export interface ActivityRow {
  id: string;
  kind: JobKind;
  apiVersion: string | null;
  createdAt: Date;
  /** The job's URL, or a search's query; null for jobs of many URLs and forgotten ZDR jobs. */
  target: string | null;
  /** The exact created_at, for the next page's cursor (a JavaScript Date keeps only milliseconds). */
  cursorAt: string;
}

export interface ActivityQuery {
  teamId: string;
  kind?: JobKind;
  since: Date;
  /** The last row of the previous page. */
  before?: { createdAt: string; id: string };
  limit: number;
}

/** One row beyond `limit` tells whether there is a next page. */
export async function listTeamActivity(db: Db, q: ActivityQuery): Promise<{ rows: ActivityRow[]; hasMore: boolean }> {
  let query = db
    .selectFrom('jobs')
    .select([
      'id',
      'kind',
      'api_version',
      'created_at',
      sql<string | null>`coalesce(url, options->>'query')`.as('target'),
      sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('cursor_at'),
    ])
    .where('team_id', '=', q.teamId)
    .where('created_at', '>=', q.since)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit + 1);
  if (q.kind) query = query.where('kind', '=', q.kind);
  if (q.before) query = query.where(sql<boolean>`(created_at, id) < (${q.before.createdAt}::timestamptz, ${q.before.id}::uuid)`);
  const rows = await query.execute();
  return {
    rows: rows.slice(0, q.limit).map((r) => ({ id: r.id, kind: r.kind, apiVersion: r.api_version, createdAt: r.created_at, target: r.target, cursorAt: r.cursor_at })),
    hasMore: rows.length > q.limit,
  };
}
