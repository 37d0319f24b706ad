/**
 * The page cache, per team. Bounded two ways, both enforced on every write so no scheduler is
 * needed: rows older than PAGE_CACHE_RETENTION_MS are deleted (for every team), and when a team's
 * rows pass PAGE_CACHE_TEAM_BYTES in total they are evicted oldest first, down to
 * PAGE_CACHE_EVICT_TO_BYTES. A request whose maxAge exceeds the retention therefore still gets at
 * most a 7-day-old copy. Concurrent stores do not see each other's rows, so a team can pass the
 * cap by the copies being stored at that moment; its next store evicts them.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../connect.js';

export const PAGE_CACHE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const PAGE_CACHE_TEAM_BYTES = 256 * 1024 * 1024;
/**
 * What an eviction leaves a team with. Evicting only down to the cap left a full cache full, so
 * every later store passed it again and ranked all the team's rows: 10–17 ms of Postgres per page
 * once a team had cached about 8,000 bench pages (bench page-store), against 4–5 ms before.
 * Down to nine tenths, the stores of the next 25 MiB evict nothing.
 */
export const PAGE_CACHE_EVICT_TO_BYTES = Math.floor(PAGE_CACHE_TEAM_BYTES * 0.9);

export interface CachedPage {
  document: Record<string, unknown>;
  outcome: Record<string, unknown>;
  cachedAt: Date;
}

/** The team's copy under `key` if it is younger than `maxAgeMs` (and, with `minAgeMs`, at least that old). */
export async function findCachedPage(
  db: Db,
  teamId: string,
  key: string,
  maxAgeMs: number,
  minAgeMs = 0,
): Promise<CachedPage | undefined> {
  let query = db
    .selectFrom('page_cache')
    .select(['document', 'outcome', 'cached_at'])
    .where('team_id', '=', teamId)
    .where('cache_key', '=', key)
    .where('cached_at', '>', new Date(Date.now() - Math.min(maxAgeMs, PAGE_CACHE_RETENTION_MS)));
  if (minAgeMs > 0) query = query.where('cached_at', '<=', new Date(Date.now() - minAgeMs));
  const row = await query.executeTakeFirst();
  return row && { document: row.document, outcome: row.outcome, cachedAt: row.cached_at };
}

/** A page's copy for the cache, its JSON serialised when the page was scraped. */
export interface CacheCopy {
  teamId: string;
  key: string;
  url: string;
  /** The Document's JSON without its markdown, which the statement adds back. */
  document: string;
  /** The Document's markdown; a Document without one has none. */
  markdown?: string;
  /**
   * Set when the Document the same statement stores holds `markdown` unchanged: the copy takes it
   * from there, so a page's text crosses the wire to Postgres once, not twice (a crawl page's
   * markdown was a third of the bytes a worker sent). A statement that stores no Document, because
   * an earlier attempt did, then writes no copy: that attempt's statement wrote one.
   */
  markdownInDocument?: boolean;
  outcome: string;
  cachedAt: Date;
}

/**
 * The copy of a freshly scraped page: its Document's JSON without the markdown, which travels
 * apart (see `markdownInDocument`), and the rest of what the scrape produced.
 */
export function newCacheCopy<Scraped extends { document: Record<string, unknown> }>(
  place: Pick<CacheCopy, 'teamId' | 'key' | 'url' | 'cachedAt'>,
  scraped: Scraped,
): CacheCopy {
  const { document, ...rest } = scraped;
  const { markdown, ...content } = document;
  const text = typeof markdown === 'string' ? markdown : undefined;
  return { ...place, document: JSON.stringify(text === undefined ? document : content), markdown: text, outcome: JSON.stringify(rest) };
}

/** A copy's store as parts of a statement (cacheStore). */
export interface CacheStore {
  entry: CacheCopy;
  sizeBytes: number;
  /** The CTEs `stored` (a row when the copy is written) and `expired`. */
  ctes: RawBuilder<unknown>;
  /** Whether the team may be past its cap with the stored copy. */
  over: RawBuilder<boolean>;
}

/**
 * Stores (or replaces) the team's copy under `key`, as parts of the statement that stores its page
 * (storePage in page-store.ts, whose CTE `inserted` is the Document it stored), followed by
 * evictIfOver with what `over` selected. The byte cap is checked against the team's total
 * (page_cache_totals, kept by triggers), so a store below the cap costs nothing more; only a store
 * that may pass it pays the ranking of the team's rows.
 */
export function cacheStore(entry: CacheCopy): CacheStore {
  // The markdown counts as its text, without its JSON escapes: the cap is on the order of the
  // bytes kept, not a byte-exact bound.
  const sizeBytes = Buffer.byteLength(entry.document) + Buffer.byteLength(entry.outcome) + Buffer.byteLength(entry.markdown ?? '');
  const markdown =
    entry.markdown === undefined ? undefined : entry.markdownInDocument ? sql`inserted.document->'markdown'` : sql`to_jsonb(${entry.markdown}::text)`;
  const document = markdown ? sql`${entry.document}::jsonb || jsonb_build_object('markdown', ${markdown})` : sql`${entry.document}::jsonb`;
  const ctes = sql`
    stored as (
      insert into page_cache (team_id, cache_key, url, document, outcome, size_bytes, cached_at)
      select ${entry.teamId}::uuid, ${entry.key}, ${entry.url}, ${document}, ${entry.outcome}::jsonb,
        ${sizeBytes}::integer, ${entry.cachedAt}::timestamptz
      ${entry.markdownInDocument ? sql`from inserted` : sql``}
      on conflict (team_id, cache_key) do update
        set url = excluded.url, document = excluded.document, outcome = excluded.outcome,
            size_bytes = excluded.size_bytes, cached_at = excluded.cached_at
      returning 1
    ), expired as (
      -- Rows another store is deleting are left to it: waiting on them would only queue stores,
      -- and two deleting several rows in different orders could deadlock.
      delete from page_cache
      where (team_id, cache_key) in (
        select team_id, cache_key from page_cache
        where cached_at <= ${new Date(Date.now() - PAGE_CACHE_RETENTION_MS)}::timestamptz
          and not (team_id = ${entry.teamId}::uuid and cache_key = ${entry.key})
        for update skip locked)
    )`;
  // The statement's parts share one snapshot: the total and the key's old copy are as before the store.
  const over = sql<boolean>`(
    coalesce((select bytes from page_cache_totals where team_id = ${entry.teamId}::uuid), 0)
      - coalesce((select size_bytes from page_cache where team_id = ${entry.teamId}::uuid and cache_key = ${entry.key}), 0)
      + ${sizeBytes}::bigint > ${PAGE_CACHE_TEAM_BYTES}::bigint)`;
  return { entry, sizeBytes, ctes, over };
}

export async function evictIfOver(db: Db, store: CacheStore, over: boolean): Promise<void> {
  if (over) await evictPastCap(db, store.entry.teamId, store.entry.key, store.sizeBytes);
}

/**
 * Newest first, a running total of bytes after the stored copy: every row past
 * PAGE_CACHE_EVICT_TO_BYTES goes.
 */
async function evictPastCap(db: Db, teamId: string, storedKey: string, storedBytes: number): Promise<void> {
  await sql`
    delete from page_cache p
    using (
      select cache_key from (
        select cache_key, sum(size_bytes) over (order by cached_at desc, cache_key) as running
        from page_cache where team_id = ${teamId}::uuid and cache_key <> ${storedKey}
      ) ranked
      where running + ${storedBytes}::bigint > ${PAGE_CACHE_EVICT_TO_BYTES}::bigint
    ) evicted
    where p.team_id = ${teamId}::uuid and p.cache_key = evicted.cache_key
  `.execute(db);
}
