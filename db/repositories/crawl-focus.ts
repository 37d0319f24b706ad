/**
 * A query-directed crawl's frontier (a crawl with `query`; lib/crawl/relevance.ts scores it): the
 * same crawl_pages rows as breadth first, claimed highest score first, and one crawl_focus row
 * with what counts against the limit, the relevant pages per query term and the stop reason.
 *
 * Claims stay exactly-once as breadth first's (crawl-pages.ts claimQueued): one statement moves a
 * row from queued to scraping under the claim's id, skipping rows another claim holds, and counts
 * it against the limit in the same transaction, so a worker killed after the commit leaves a
 * claimed page that a retried slice hands back, and one killed before it leaves nothing.
 */
import { sql } from 'kysely';
import type { StopReason } from '../../lib/crawl/relevance.js';
import type { FrontierPage } from '../../lib/crawl/settings.js';
import type { Db } from '../connect.js';
import { PREPARED } from '../prepared.js';

export interface FocusRow {
  minScore: number;
  pageLimit: number;
  /** Relevant pages per term for that term's full coverage. */
  evidence: number;
  /** Pages claimed so far: what counts against the limit. */
  claimed: number;
  /** Pages scored on arrival, and those of them scoring minScore or more. */
  scored: number;
  relevant: number;
  /** Pages in a row, up to the last, that scored below minScore. */
  streak: number;
  /** Per query term, the relevant pages that hold it. */
  pagesPerTerm: number[];
  stopReason: StopReason | null;
}

/** What one page adds to its crawl's progress when it settles. */
export interface FocusEvidence {
  relevant: boolean;
  /** Per query term: whether the page holds it. */
  hits: boolean[];
}

/** Written when the crawl starts, before its frontier is seeded; a retried start keeps the first. */
export async function createFocus(db: Db, jobId: string, focus: { minScore: number; limit: number; evidence: number; terms: number }): Promise<void> {
  await db
    .insertInto('crawl_focus')
    .values({
      job_id: jobId,
      min_score: focus.minScore,
      page_limit: focus.limit,
      evidence: focus.evidence,
      pages_per_term: Array<number>(focus.terms).fill(0),
    })
    .onConflict((oc) => oc.column('job_id').doNothing())
    .execute();
}

export async function readFocus(db: Db, jobId: string): Promise<FocusRow | undefined> {
  const row = await db.selectFrom('crawl_focus').selectAll().where('job_id', '=', jobId).executeTakeFirst();
  if (!row) return undefined;
  return {
    minScore: row.min_score,
    pageLimit: row.page_limit,
    evidence: row.evidence,
    claimed: row.claimed,
    scored: row.scored,
    relevant: row.relevant,
    streak: row.streak,
    pagesPerTerm: row.pages_per_term,
    stopReason: row.stop_reason as StopReason | null,
  };
}

/**
 * Moves up to `max` queued pages scoring at least minScore to `scraping` under `claimId`, highest
 * score first (then oldest), while the crawl has not stopped and its limit has room. The focus
 * row is locked first, so concurrent claims take turns on the limit; the page rows are read
 * through crawl_pages_best_idx, in its order, and rows another claim holds are skipped. The pick
 * is materialised to run once, as breadth first's (crawl-pages.ts claimQueued says why).
 */
export async function claimBestFirst(db: Db, jobId: string, claimId: string, max: number): Promise<FrontierPage[]> {
  const { rows } = await sql<{ url: string; url_key: string; depth: number; seq: string; score: number | null; parent_url: string | null }>`
    with focus as (
      select page_limit - claimed as room, min_score from crawl_focus
      where job_id = ${jobId}::uuid and stop_reason is null
      for update
    ), pick as materialized (
      select url_key from crawl_pages
      where job_id = ${jobId}::uuid and status = 'queued' and score is not null and score >= (select min_score from focus)
      order by score desc, seq
      limit greatest(0, least(${max}::integer, (select room from focus)))
      for update skip locked
    ), claimed as (
      update crawl_pages p set status = 'scraping', claim_id = ${claimId}, updated_at = now()
      from pick where p.job_id = ${jobId}::uuid and p.url_key = pick.url_key
      returning p.url, p.url_key, p.depth, p.seq, p.score, p.parent_url
    ), counted as (
      update crawl_focus set claimed = claimed + (select count(*) from claimed)
      where job_id = ${jobId}::uuid and exists (select 1 from claimed)
    )
    select * from claimed${PREPARED}`.execute(db);
  return rows
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || Number(a.seq) - Number(b.seq))
    .map((r) => ({
      url: r.url,
      urlKey: r.url_key,
      depth: r.depth,
      ...(r.score !== null && { score: r.score }),
      ...(r.parent_url !== null && { parentUrl: r.parent_url }),
    }));
}

/**
 * Whether the crawl may still scrape a page: one is in flight (it may add links), or one queued
 * could be claimed. Pages below minScore stay queued for good, so counting open rows, as breadth
 * first does, would never reach zero.
 */
export async function focusHasWork(db: Db, jobId: string): Promise<boolean> {
  const { rows } = await sql<{ open: boolean }>`
    select exists (select 1 from crawl_pages where job_id = ${jobId}::uuid and status = 'scraping')
      or exists (
        select 1 from crawl_focus f
        where f.job_id = ${jobId}::uuid and f.stop_reason is null and f.claimed < f.page_limit
          and exists (select 1 from crawl_pages p
            where p.job_id = ${jobId}::uuid and p.status = 'queued' and p.score is not null and p.score >= f.min_score)
      ) as open${PREPARED}`.execute(db);
  return rows[0]!.open;
}

/** Records why the crawl stopped; the first reason recorded stays. */
export async function recordStop(db: Db, jobId: string, reason: StopReason): Promise<void> {
  await db.updateTable('crawl_focus').set({ stop_reason: reason }).where('job_id', '=', jobId).where('stop_reason', 'is', null).execute();
}

/**
 * The settle statement's part (crawl-pages.ts settlePage) that adds a page's evidence, made only
 * when that statement stored the page's Document (`inserted`), so each page counts once however
 * often it is settled.
 */
export function focusEvidenceUpdate(jobId: string, evidence: FocusEvidence) {
  const relevant = evidence.relevant;
  return sql`update crawl_focus set
      scored = scored + 1,
      relevant = relevant + ${relevant ? 1 : 0}::integer,
      streak = case when ${relevant}::boolean then 0 else streak + 1 end,
      pages_per_term = case when ${relevant}::boolean
        then (select array_agg(n + h order by i) from unnest(pages_per_term, ${evidence.hits.map(Number)}::integer[]) with ordinality as u(n, h, i))
        else pages_per_term end
    where job_id = ${jobId}::uuid and exists (select 1 from inserted)
    returning 1`;
}
