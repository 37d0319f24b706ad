/** Live browser sessions (workflows/browser-session.ts), their replay frames, and their end. */
import type { Db } from '../connect.js';
import type { BrowserSessionStatus, Database } from '../schema.js';
import type { Selectable } from 'kysely';

export type BrowserSession = Selectable<Database['browser_sessions']>;

export interface NewBrowserSession {
  id: string;
  teamId: string;
  scrapeId: string | null;
  ttlS: number;
  activityTtlS: number;
  profileName: string | null;
  saveChanges: boolean;
}

export async function insertBrowserSession(db: Db, s: NewBrowserSession): Promise<void> {
  await db
    .insertInto('browser_sessions')
    .values({
      id: s.id,
      team_id: s.teamId,
      scrape_id: s.scrapeId,
      ttl_s: s.ttlS,
      activity_ttl_s: s.activityTtlS,
      profile_name: s.profileName,
      save_changes: s.saveChanges,
    })
    .execute();
}

/** The session, only for its own team: another team's id reads as not found. */
export async function findTeamBrowserSession(db: Db, teamId: string, id: string): Promise<BrowserSession | undefined> {
  return db.selectFrom('browser_sessions').selectAll().where('id', '=', id).where('team_id', '=', teamId).executeTakeFirst();
}

/** A scrape's live interact session, if it has one. */
export async function findScrapeSession(db: Db, teamId: string, scrapeId: string): Promise<BrowserSession | undefined> {
  return db
    .selectFrom('browser_sessions')
    .selectAll()
    .where('scrape_id', '=', scrapeId)
    .where('team_id', '=', teamId)
    .where('status', '=', 'active')
    .executeTakeFirst();
}

export async function listTeamBrowserSessions(db: Db, teamId: string, status: BrowserSessionStatus | undefined, limit: number): Promise<BrowserSession[]> {
  let query = db.selectFrom('browser_sessions').selectAll().where('team_id', '=', teamId);
  if (status) query = query.where('status', '=', status);
  return query.orderBy('created_at', 'desc').limit(limit).execute();
}

export async function touchBrowserSession(db: Db, id: string, usedPrompt: boolean): Promise<void> {
  await db
    .updateTable('browser_sessions')
    .set({ last_activity_at: new Date(), ...(usedPrompt && { used_prompt: true }) })
    .where('id', '=', id)
    .execute();
}

/** What the end of a session is billed by: whether it is still active, whether a prompt ran in it, and what it was billed once ended. */
export async function readSessionBilling(db: Db, id: string): Promise<Pick<BrowserSession, 'status' | 'used_prompt' | 'credits_billed'>> {
  return db.selectFrom('browser_sessions').select(['status', 'used_prompt', 'credits_billed']).where('id', '=', id).executeTakeFirstOrThrow();
}

export interface SessionEnd {
  status: Exclude<BrowserSessionStatus, 'active'>;
  reason: string;
  durationMs: number;
  credits: number;
}

/** Ends the session once: false when it had ended already (a retried activity). */
export async function endBrowserSession(db: Db, id: string, end: SessionEnd): Promise<boolean> {
  const result = await db
    .updateTable('browser_sessions')
    .set({ status: end.status, end_reason: end.reason, ended_at: new Date(), duration_ms: end.durationMs, credits_billed: end.credits })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface ReplayFrame {
  seq: number;
  at: Date;
  page_url: string;
  action: string;
}

/** Keeps a frame; `seq` counts the session's executes, so a retried write keeps the first. */
export async function insertReplayFrame(db: Db, frame: { sessionId: string; seq: number; pageUrl: string; action: string; image: Buffer }): Promise<void> {
  await db
    .insertInto('browser_session_frames')
    .values({ session_id: frame.sessionId, seq: frame.seq, page_url: frame.pageUrl, action: frame.action, image: frame.image })
    .onConflict((oc) => oc.columns(['session_id', 'seq']).doNothing())
    .execute();
}

export async function listReplayFrames(db: Db, sessionId: string): Promise<ReplayFrame[]> {
  return db.selectFrom('browser_session_frames').select(['seq', 'at', 'page_url', 'action']).where('session_id', '=', sessionId).orderBy('seq').execute();
}

export async function readReplayFrame(db: Db, sessionId: string, seq: number): Promise<Buffer | undefined> {
  const row = await db.selectFrom('browser_session_frames').select('image').where('session_id', '=', sessionId).where('seq', '=', seq).executeTakeFirst();
  return row?.image;
}
