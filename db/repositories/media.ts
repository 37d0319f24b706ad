import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { NewMedia } from '../schema.js';

export async function insertMedia(db: Db, media: NewMedia): Promise<void> {
  await db.insertInto('media').values(media).execute();
}

/** A stored file younger than the retention, with the seconds it has left; expired ones are gone. */
export async function findLiveMedia(
  db: Db,
  id: string,
  retentionHours: number,
): Promise<{ mimeType: string; data: Buffer; secondsLeft: number } | undefined> {
  const row = await db
    .selectFrom('media')
    .select([
      'mime_type',
      'data',
      sql<number>`extract(epoch from created_at + ${retentionInterval(retentionHours)} - now())`.as('seconds_left'),
    ])
    .where('id', '=', id)
    .where('created_at', '>', sql<Date>`now() - ${retentionInterval(retentionHours)}`)
    .executeTakeFirst();
  return row && { mimeType: row.mime_type, data: row.data, secondsLeft: Math.max(0, Math.floor(Number(row.seconds_left))) };
}

/**
 * Deletes expired media, at most `batch` rows per statement so no single delete holds its locks
 * for long. Returns how many rows went.
 */
export async function deleteExpiredMedia(db: Db, retentionHours: number, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = db
      .selectFrom('media')
      .select('id')
      .where('created_at', '<=', sql<Date>`now() - ${retentionInterval(retentionHours)}`)
      .orderBy('created_at')
      .limit(batch);
    const result = await db.deleteFrom('media').where('id', 'in', expired).executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < batch) return total;
  }
}

function retentionInterval(hours: number) {
  return sql`make_interval(secs => ${hours * 3600})`;
}
