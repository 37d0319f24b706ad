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
    .where('received', '=', true)
    .executeTakeFirst();
  return row && { filename: row.filename, contentType: row.content_type, data: row.data };
}

/** How long a two-step upload's reference is good for, from the moment it is made (Firecrawl's 10 minutes). */
export const UPLOAD_REF_TTL_MINUTES = 10;
const live = sql<boolean>`created_at > now() - make_interval(mins => ${UPLOAD_REF_TTL_MINUTES})`;

/** The first step of a two-step upload: a row without bytes, found again by its reference. */
export async function reserveParseUpload(
  db: Db,
  upload: { id: string; teamId: string; filename: string; contentType: string; uploadRef: string },
): Promise<void> {
  await db
    .insertInto('parse_uploads')
    .values({
      id: upload.id,
      team_id: upload.teamId,
      filename: upload.filename,
      content_type: upload.contentType,
      data: Buffer.alloc(0),
      upload_ref: upload.uploadRef,
      received: false,
    })
    .execute();
}

/** The PUT of a two-step upload: stores the bytes once, while the reference is live. False when it is not. */
export async function receiveParseUpload(db: Db, id: string, uploadRef: string, data: Buffer): Promise<boolean> {
  const result = await db
    .updateTable('parse_uploads')
    .set({ data, received: true })
    .where('id', '=', id)
    .where('upload_ref', '=', uploadRef)
    .where('received', '=', false)
    .where(live)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A received two-step upload of the team's, by its reference, while the reference is live. */
export async function findUploadByRef(db: Db, teamId: string, uploadRef: string): Promise<(ParseUpload & { id: string }) | undefined> {
  const row = await db
    .selectFrom('parse_uploads')
    .select(['id', 'filename', 'content_type', 'data'])
    .where('upload_ref', '=', uploadRef)
    .where('team_id', '=', teamId)
    .where('received', '=', true)
    .where(live)
    .executeTakeFirst();
  return row && { id: row.id, filename: row.filename, contentType: row.content_type, data: row.data };
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
