import { sql } from 'kysely';
import type { Db } from '../connect.js';

export interface ParseUpload {
  filename: string;
  contentType: string;
  data: Buffer;
}

export async function insertParseUpload(db: Db, upload: ParseUpload & { id: string; teamId: string }): Promise<void> {
  await db
    .insertInto('parse_uploads')
    .values({ id: upload.id, team_id: upload.teamId, filename: upload.filename, content_type: upload.contentType, data: upload.data })
    .execute();
}

/** The upload, only for the team that made it. */
export async function findParseUpload(db: Db, teamId: string, id: string): Promise<ParseUpload | undefined> {
  const row = await db
    .selectFrom('parse_uploads')
    .select(['filename', 'content_type', 'data'])
    .where('id', '=', id)
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  return row && { filename: row.filename, contentType: row.content_type, data: row.data };
}

export async function deleteParseUpload(db: Db, id: string): Promise<void> {
  await db.deleteFrom('parse_uploads').where('id', '=', id).execute();
}

/** Uploads older than `hours` (a parse that never ran, or whose API died before deleting it). */
export async function deleteStaleParseUploads(db: Db, hours: number): Promise<number> {
  const result = await db
    .deleteFrom('parse_uploads')
    .where('created_at', '<=', sql<Date>`now() - make_interval(secs => ${hours * 3600})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
