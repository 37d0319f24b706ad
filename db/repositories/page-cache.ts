/**
 * The page cache, per team. Bounded two ways, both enforced on every write so no scheduler is
 * needed: rows older than PAGE_CACHE_RETENTION_MS are deleted (for every team), and a team's rows
 * above PAGE_CACHE_TEAM_BYTES in total are evicted oldest first. A request whose maxAge exceeds the
 * retention therefore still gets at most a 7-day-old copy.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

export const PAGE_CACHE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const PAGE_CACHE_TEAM_BYTES = 256 * 1024 * 1024;

export interface CachedPage {
  document: Record<string, unknown>;
  outcome: Record<string, unknown>;
  cachedAt: Date;
}

/** The team's copy under `key` if it is younger than `maxAgeMs`. */
export async function findCachedPage(
  db: Db,
  teamId: string,
  key: string,
  maxAgeMs: number,
): Promise<CachedPage | undefined> {
  const row = await db
    .selectFrom('page_cache')
    .select(['document', 'outcome', 'cached_at'])
    .where('team_id', '=', teamId)
    .where('cache_key', '=', key)
    .where('cached_at', '>', new Date(Date.now() - Math.min(maxAgeMs, PAGE_CACHE_RETENTION_MS)))
    .executeTakeFirst();
  return row && { document: row.document, outcome: row.outcome, cachedAt: row.cached_at };
}

/** Stores (or replaces) the team's copy under `key`, then applies both bounds. */
export async function storeCachedPage(
  db: Db,
  entry: { teamId: string; key: string; url: string; document: string; outcome: string; cachedAt: Date },
): Promise<void> {
  const fresh = {
    url: entry.url,
    document: entry.document,
    outcome: entry.outcome,
    size_bytes: Buffer.byteLength(entry.document) + Buffer.byteLength(entry.outcome),
    cached_at: entry.cachedAt,
  };
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('page_cache')
      .values({ team_id: entry.teamId, cache_key: entry.key, ...fresh })
      .onConflict((oc) => oc.columns(['team_id', 'cache_key']).doUpdateSet(fresh))
      .execute();
    await trx
      .deleteFrom('page_cache')
      .where('cached_at', '<=', new Date(Date.now() - PAGE_CACHE_RETENTION_MS))
      .execute();
    // Newest first, a running total of bytes: every row past the cap goes.
    await sql`
      delete from page_cache p
      using (
        select cache_key from (
          select cache_key,
                 sum(size_bytes) over (order by cached_at desc, cache_key) as running
          from page_cache where team_id = ${entry.teamId}
        ) ranked
        where running > ${PAGE_CACHE_TEAM_BYTES}
      ) evicted
      where p.team_id = ${entry.teamId} and p.cache_key = evicted.cache_key
    `.execute(trx);
  });
}
