/**
 * Monitors, their checks and the pages each check compared. A monitor's checks are started by its
 * Temporal Schedule or by POST /v2/monitor/{id}/run; beginCheck decides, under the monitor's row
 * lock, whether a check runs or is recorded as skipped, so two checks never run at once.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';
import type { MonitorCheckStatus, MonitorCheckTable, MonitorPageStatus, MonitorTable } from '../schema.js';
import type { Insertable, Selectable, Updateable } from 'kysely';

export type MonitorRow = Selectable<MonitorTable>;
export type MonitorCheckRow = Selectable<MonitorCheckTable>;
export type MonitorSummary = Record<'totalPages' | MonitorPageStatus, number>;

/** A check still `running` after this long belongs to a workflow that is gone; it no longer blocks new checks. */
const STALE_CHECK_MS = 24 * 3_600_000;

export const EMPTY_SUMMARY: MonitorSummary = { totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 };

/**
 * Stores the monitor unless its team already keeps `cap` of them; false when it does. The team's
 * row is locked while it counts, so concurrent creates cannot pass the cap together.
 */
export async function insertMonitor(db: Db, row: Insertable<MonitorTable>, cap: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('teams').select('id').where('id', '=', row.team_id).forUpdate().executeTakeFirst();
    const { n } = await trx.selectFrom('monitors').select((eb) => eb.fn.countAll<string>().as('n')).where('team_id', '=', row.team_id).executeTakeFirstOrThrow();
    if (Number(n) >= cap) return false;
    await trx.insertInto('monitors').values(row).execute();
    return true;
  });
}

/** The ids of every monitor a team keeps. */
export async function listTeamMonitorIds(db: Db, teamId: string): Promise<string[]> {
  const rows = await db.selectFrom('monitors').select('id').where('team_id', '=', teamId).execute();
  return rows.map((r) => r.id);
}

export async function findTeamMonitor(db: Db, teamId: string, id: string): Promise<MonitorRow | undefined> {
  return db.selectFrom('monitors').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

export async function findMonitor(db: Db, id: string): Promise<MonitorRow | undefined> {
  return db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listTeamMonitors(db: Db, teamId: string, page: { limit: number; offset: number }): Promise<MonitorRow[]> {
  return db
    .selectFrom('monitors')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function updateMonitor(db: Db, id: string, patch: Updateable<MonitorTable>): Promise<MonitorRow | undefined> {
  return db
    .updateTable('monitors')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteMonitor(db: Db, id: string): Promise<void> {
  await db.deleteFrom('monitors').where('id', '=', id).execute();
}

/** A check asked for by /run, written before its workflow starts so the response can name it. */
export async function insertQueuedCheck(
  db: Db,
  check: { id: string; monitorId: string; teamId: string; workflowId: string; estimatedCredits: number; expiresAt: Date },
): Promise<MonitorCheckRow> {
  return db
    .insertInto('monitor_checks')
    .values({
      id: check.id,
      monitor_id: check.monitorId,
      team_id: check.teamId,
      status: 'queued',
      trigger: 'manual',
      estimated_credits: check.estimatedCredits,
      summary: JSON.stringify(EMPTY_SUMMARY),
      workflow_id: check.workflowId,
      updated_at: new Date(),
      expires_at: check.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface BeginCheck {
  checkId: string;
  monitorId: string;
  trigger: 'scheduled' | 'manual';
  scheduledFor?: Date;
  workflowId: string;
  estimatedCredits: number;
  expiresAt: Date;
  /** Decided by the caller before the lock: the team has no credits left. */
  outOfCredits: boolean;
}

/**
 * Starts the check (`running`) or records why it does not run: `skipped_overlap` when another
 * check of the monitor is queued or running, `skipped_no_credits` when the team has none. Safe to
 * call twice with one check id (an activity retry): the second call returns the first's decision.
 */
export async function beginCheck(db: Db, begin: BeginCheck): Promise<{ status: MonitorCheckStatus; monitor: MonitorRow } | undefined> {
  return db.transaction().execute(async (trx) => {
    const monitor = await trx.selectFrom('monitors').selectAll().where('id', '=', begin.monitorId).forUpdate().executeTakeFirst();
    if (!monitor) return undefined;
    const existing = await trx.selectFrom('monitor_checks').select('status').where('id', '=', begin.checkId).executeTakeFirst();
    if (existing && existing.status !== 'queued') return { status: existing.status, monitor };
    const busy = await trx
      .selectFrom('monitor_checks')
      .select('id')
      .where('monitor_id', '=', begin.monitorId)
      .where('id', '<>', begin.checkId)
      .where('status', 'in', ['queued', 'running'])
      .where('created_at', '>', new Date(Date.now() - STALE_CHECK_MS))
      .executeTakeFirst();
    const status: MonitorCheckStatus = busy ? 'skipped_overlap' : begin.outOfCredits ? 'skipped_no_credits' : 'running';
    const now = new Date();
    const finished = status !== 'running';
    const fields = {
      status,
      started_at: now,
      finished_at: finished ? now : null,
      actual_credits: finished ? 0 : null,
      updated_at: now,
    };
    if (existing) {
      await trx.updateTable('monitor_checks').set(fields).where('id', '=', begin.checkId).execute();
    } else {
      await trx
        .insertInto('monitor_checks')
        .values({
          id: begin.checkId,
          monitor_id: begin.monitorId,
          team_id: monitor.team_id,
          trigger: begin.trigger,
          scheduled_for: begin.scheduledFor ?? null,
          estimated_credits: begin.estimatedCredits,
          summary: JSON.stringify(EMPTY_SUMMARY),
          workflow_id: begin.workflowId,
          expires_at: begin.expiresAt,
          ...fields,
        })
        .execute();
    }
    if (status === 'running') {
      await trx.updateTable('monitors').set({ current_check_id: begin.checkId, last_run_at: now }).where('id', '=', begin.monitorId).execute();
    }
    return { status, monitor };
  });
}

export async function setCheckTargets(db: Db, checkId: string, targetResults: Record<string, unknown>[]): Promise<void> {
  await db
    .updateTable('monitor_checks')
    .set({ target_results: JSON.stringify(targetResults), updated_at: new Date() })
    .where('id', '=', checkId)
    .execute();
}

export interface CheckPage {
  targetId: string;
  url: string;
  urlKey: string;
  status: MonitorPageStatus;
  previousScrapeId: string | null;
  currentScrapeId: string | null;
  statusCode: number | null;
  error: string | null;
  diff: Record<string, unknown> | null;
  judgment: Record<string, unknown> | null;
}

/** Records a check's pages; a retry writes each page once. */
export async function insertCheckPages(db: Db, checkId: string, monitorId: string, pages: readonly (CheckPage & { id: string })[]): Promise<void> {
  for (let i = 0; i < pages.length; i += 1000) {
    const chunk = pages.slice(i, i + 1000);
    await db
      .insertInto('monitor_check_pages')
      .values(
        chunk.map((p) => ({
          id: p.id,
          check_id: checkId,
          monitor_id: monitorId,
          target_id: p.targetId,
          url: p.url,
          url_key: p.urlKey,
          status: p.status,
          previous_scrape_id: p.previousScrapeId,
          current_scrape_id: p.currentScrapeId,
          status_code: p.statusCode,
          error: p.error,
          diff: p.diff === null ? null : JSON.stringify(p.diff),
          judgment: p.judgment === null ? null : JSON.stringify(p.judgment),
        })),
      )
      .onConflict((oc) => oc.constraint('monitor_check_pages_unique').doNothing())
      .execute();
  }
}

/** Ends a running check and updates the monitor's last summary. */
export async function finishCheck(
  db: Db,
  done: { checkId: string; monitorId: string; status: MonitorCheckStatus; summary: MonitorSummary; actualCredits: number; judged: boolean; error: string | null },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const now = new Date();
    await trx
      .updateTable('monitor_checks')
      .set({
        status: done.status,
        summary: JSON.stringify(done.summary),
        actual_credits: done.actualCredits,
        judged: done.judged,
        error: done.error,
        finished_at: now,
        updated_at: now,
      })
      .where('id', '=', done.checkId)
      .execute();
    await trx
      .updateTable('monitors')
      .set({ last_check_summary: JSON.stringify(done.summary), current_check_id: null })
      .where('id', '=', done.monitorId)
      .where('current_check_id', '=', done.checkId)
      .execute();
  });
}

export async function listChecks(
  db: Db,
  monitorId: string,
  page: { limit: number; offset: number; status?: MonitorCheckStatus },
): Promise<MonitorCheckRow[]> {
  let query = db.selectFrom('monitor_checks').selectAll().where('monitor_id', '=', monitorId).where('expires_at', '>', new Date());
  if (page.status) query = query.where('status', '=', page.status);
  return query.orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute();
}

export async function findCheck(db: Db, monitorId: string, checkId: string): Promise<MonitorCheckRow | undefined> {
  return db
    .selectFrom('monitor_checks')
    .selectAll()
    .where('monitor_id', '=', monitorId)
    .where('id', '=', checkId)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
}

export async function listCheckPages(db: Db, checkId: string, page: { limit: number; skip: number; status?: MonitorPageStatus }) {
  let query = db.selectFrom('monitor_check_pages').selectAll().where('check_id', '=', checkId);
  if (page.status) query = query.where('status', '=', page.status);
  return query.orderBy('target_id').orderBy('url').limit(page.limit).offset(page.skip).execute();
}

/**
 * The pages of the monitor's latest finished check before `checkId` that ran `targetId`: what a
 * crawl target found last time, to tell which pages are gone, and each page's scrape id.
 */
export async function previousCheckPages(db: Db, monitorId: string, targetId: string, checkId: string) {
  const previous = await db
    .selectFrom('monitor_checks')
    .select('id')
    .where('monitor_id', '=', monitorId)
    .where('id', '<>', checkId)
    .where('status', 'in', ['completed', 'partial'])
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!previous) return [];
  return db
    .selectFrom('monitor_check_pages')
    .select(['url', 'url_key', 'status', 'current_scrape_id', 'previous_scrape_id'])
    .where('check_id', '=', previous.id)
    .where('target_id', '=', targetId)
    .execute();
}

/** Checks that did not run (skipped, or still queued) are no tick of an adaptive monitor. */
const NOT_RUN: MonitorCheckStatus[] = ['queued', 'skipped_overlap', 'skipped_no_credits'];

/**
 * An adaptive monitor's evidence (lib/monitor/adaptive.ts): each page its checks found, with the
 * tick of its check (its place, from 0, among the checks that ran), and the latest tick.
 */
export async function monitorPageHistory(db: Db, monitorId: string) {
  const ticks = db
    .selectFrom('monitor_checks')
    .select(['id', 'started_at', sql<number>`(row_number() over (order by started_at, id))::int - 1`.as('tick')])
    .where('monitor_id', '=', monitorId)
    .where('status', 'not in', NOT_RUN)
    .as('c');
  const [pages, latest] = await Promise.all([
    db
      .selectFrom('monitor_check_pages as p')
      .innerJoin(ticks, 'c.id', 'p.check_id')
      .select(['p.target_id', 'p.url', 'p.url_key', 'p.status', 'c.tick', 'p.created_at'])
      .where('p.monitor_id', '=', monitorId)
      .execute(),
    db.selectFrom('monitor_checks').select((eb) => eb.fn.countAll<string>().as('n')).where('monitor_id', '=', monitorId).where('status', 'not in', NOT_RUN).executeTakeFirst(),
  ]);
  return { currentTick: Number(latest?.n ?? 0) - 1, pages };
}

/** What a check's page jobs stored: each page's Document id, change tracking and status, or its error. */
export async function checkJobPages(db: Db, jobId: string) {
  return db
    .selectFrom('crawl_pages as p')
    .leftJoin('documents as d', (join) => join.onRef('d.job_id', '=', 'p.job_id').onRef('d.url_key', '=', 'p.url_key'))
    .select([
      'p.url',
      'p.url_key',
      'p.status as page_status',
      'd.id as document_id',
      'd.status as document_status',
      'd.error',
      'd.credits_used',
      sql<Record<string, unknown> | null>`d.document -> 'changeTracking'`.as('change_tracking'),
      sql<number | null>`(d.document -> 'metadata' ->> 'statusCode')::int`.as('status_code'),
      sql<string | null>`d.document ->> 'markdown'`.as('markdown'),
    ])
    .where('p.job_id', '=', jobId)
    .orderBy('p.seq')
    .execute();
}

/** Deletes checks past their retention (the monitor's retentionDays, capped by result retention). */
export async function purgeExpiredChecks(db: Db): Promise<number> {
  const result = await db.deleteFrom('monitor_checks').where('expires_at', '<=', new Date()).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A check whose workflow could not be started, or that failed as a whole. */
export async function setCheckFailed(db: Db, checkId: string, error: string): Promise<void> {
  const now = new Date();
  await db
    .updateTable('monitor_checks')
    .set({ status: 'failed', error, finished_at: now, updated_at: now, actual_credits: 0 })
    .where('id', '=', checkId)
    .execute();
}

export async function findCheckPage(db: Db, id: string) {
  return db.selectFrom('monitor_check_pages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A check whose workflow failed before it could finish: it no longer holds the monitor. */
export async function abandonCheck(db: Db, checkId: string, monitorId: string, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const now = new Date();
    await trx
      .updateTable('monitor_checks')
      .set({ status: 'failed', error, finished_at: now, updated_at: now })
      .where('id', '=', checkId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    await trx.updateTable('monitors').set({ current_check_id: null }).where('id', '=', monitorId).where('current_check_id', '=', checkId).execute();
  });
}

/** The check's pages that are events (new, changed, removed, error), in a stable order, at most `limit`. */
export async function listCheckEventPageIds(db: Db, checkId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('monitor_check_pages')
    .select('id')
    .where('check_id', '=', checkId)
    .where('status', '<>', 'same')
    .orderBy('target_id')
    .orderBy('url')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
