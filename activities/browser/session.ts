/**
 * A browser session's lifecycle on the workers (workflows/browser-session.ts drives it):
 *
 * - `openBrowserSession`, on the shared task queue: whichever worker takes it opens the page (from
 *   the team's profile, at the scraped page for an interact session), takes one of the team's
 *   concurrency slots for the session's life, and answers with its own task queue;
 * - `holdBrowserSession`, on that queue: runs as long as the session does, heartbeating and
 *   renewing the slot. A worker that dies misses the heartbeat, and the workflow ends the session
 *   as lost;
 * - `closeBrowserSession`, on that queue: saves the profile when asked, and closes the page;
 * - `finishBrowserSession`, on the shared queue: the row, the job and the charge for its time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { acquireSlot, releaseSlots } from '../../db/repositories/concurrency-slots.js';
import { endBrowserSession, readSessionBilling } from '../../db/repositories/browser-sessions.js';
import { finishJob } from '../../db/repositories/jobs.js';
import { readTeamStanding } from '../../db/repositories/usage.js';
import { browserSessionCredits, creditsLeft } from '../../lib/credits.js';
import { NonRetryablePageError, sessionLostError, TrawlError } from '../../lib/errors.js';
import { resolvePlan } from '../../lib/plans.js';
import { navigate } from '../../browser/interact/ops.js';
import type { Action } from '../../contracts/scrape-options.js';
import { runActions } from '../../scraper/actions/run-actions.js';
import { ACTION_SETTLE_MS, SETTLE_MAX_MS, watchNetwork } from '../../scraper/engines/page-settle.js';
import { atActivityBoundary } from '../boundary.js';
import type { ActivityDeps } from '../deps.js';
import { chargeWith } from '../page/team-budget.js';
import { LEASE_TTL_MS, RENEW_INTERVAL_MS, renewLease } from '../page/team-slot.js';
import { NoSessionCapacity, type LiveSession, type LiveSessions } from './live-sessions.js';
import { loadProfile, saveProfile } from './profiles.js';

/** Reads of the balance before a session's end is billed; each lost race means another page was charged. */
const MAX_BILLING_ATTEMPTS = 5;

const HEARTBEAT_MS = 2_000;
const START_NAVIGATION_MS = 30_000;

export interface OpenSessionInput {
  sessionId: string;
  teamId: string;
  profileName?: string;
  /**
   * An interact session starts where its scrape was: the scrape is replayed (its URL, headers,
   * waitFor and page actions), as Firecrawl does, so what the page set then it sets again.
   */
  start?: { url: string; headers?: Record<string, string>; mobile?: boolean; waitForMs?: number; actions?: Action[] };
}

export interface OpenSessionResult {
  /** The opening worker's own queue: every later activity of the session goes there. */
  taskQueue: string;
}

export interface CloseSessionInput {
  sessionId: string;
  teamId: string;
  profile?: { name: string; saveChanges: boolean };
}

export interface FinishSessionInput {
  sessionId: string;
  teamId: string;
  status: 'destroyed' | 'lost';
  reason: string;
  /** The time the session was known to be alive, which is what is billed. */
  aliveMs: number;
  /** False for a session that never opened: nothing is charged. */
  billable: boolean;
}

export interface FinishSessionResult {
  credits: number;
}

function liveSessionsOf(deps: ActivityDeps): LiveSessions {
  if (!deps.liveSessions) throw new NonRetryablePageError('SERVICE_UNAVAILABLE', 'This worker runs no browser sessions');
  return deps.liveSessions;
}

export function requireLiveSession(deps: ActivityDeps, id: string): LiveSession {
  const session = liveSessionsOf(deps).get(id);
  if (!session) throw sessionLostError();
  return session;
}

/** Actions that change the page; captures (screenshots, scrapes, PDFs) were for the scrape's Document. */
const REPLAYED_ACTIONS: ReadonlySet<Action['type']> = new Set(['wait', 'click', 'write', 'press', 'scroll', 'executeJavascript']);

async function replayScrape(session: LiveSession, start: NonNullable<OpenSessionInput['start']>): Promise<void> {
  const deadline = Date.now() + START_NAVIGATION_MS;
  const signal = AbortSignal.timeout(START_NAVIGATION_MS);
  const remainingMs = () => Math.max(1, deadline - Date.now());
  const network = watchNetwork(session.page);
  await navigate({ page: session.page, signal, remainingMs }, start.url);
  if (start.waitForMs) await sleep(Math.min(start.waitForMs, remainingMs()), undefined, { signal });
  const actions = (start.actions ?? []).filter((action) => REPLAYED_ACTIONS.has(action.type));
  if (actions.length === 0) return;
  await runActions(actions, {
    page: session.page,
    signal,
    remainingMs,
    settle: () => network.wait(ACTION_SETTLE_MS, ACTION_SETTLE_MS, Math.min(SETTLE_MAX_MS, remainingMs()), signal),
    html: () => session.page.content(),
  });
}

export function createBrowserSessionActivities(deps: ActivityDeps) {
  return {
    async openBrowserSession(input: OpenSessionInput): Promise<OpenSessionResult> {
      return atActivityBoundary(async () => {
        const sessions = liveSessionsOf(deps);
        const { planRow } = await readTeamStanding(deps.db, input.teamId);
        const slot = await acquireSlot(deps.db, input.teamId, resolvePlan(planRow).concurrency, input.sessionId, LEASE_TTL_MS);
        if (!slot) throw new NonRetryablePageError('CONCURRENCY_LIMITED', "Too many browser sessions and pages at once for the team's plan: end a session first");
        try {
          const storageState = input.profileName ? await loadProfile(deps.db, deps.profileKey, input.teamId, input.profileName) : undefined;
          const session = await sessions.open({
            id: input.sessionId,
            teamId: input.teamId,
            storageState,
            page: { mobile: input.start?.mobile, extraHTTPHeaders: input.start?.headers },
          });
          if (input.start) await replayScrape(session, input.start);
          return { taskQueue: sessions.taskQueue };
        } catch (err) {
          sessions.get(input.sessionId)?.end('it failed to open');
          await releaseSlots(deps.db, { teamId: input.teamId, leaseId: input.sessionId });
          if (err instanceof NoSessionCapacity) throw new NonRetryablePageError('SERVICE_UNAVAILABLE', 'No browser capacity for another session right now; try again shortly');
          throw err;
        }
      });
    },

    async holdBrowserSession(input: { sessionId: string; teamId: string }): Promise<{ reason: string }> {
      return atActivityBoundary(async () => {
        const session = requireLiveSession(deps, input.sessionId);
        const ctx = Context.current();
        let renewedAt = Date.now();
        let reason: string | undefined;
        void session.ended.then((why) => (reason = why));
        try {
          while (reason === undefined && !ctx.cancellationSignal.aborted) {
            ctx.heartbeat();
            if (Date.now() - renewedAt >= RENEW_INTERVAL_MS) {
              await renewLease(deps.db, { teamId: input.teamId, leaseId: input.sessionId });
              renewedAt = Date.now();
            }
            await Promise.race([session.ended, sleep(HEARTBEAT_MS, undefined, { signal: ctx.cancellationSignal }).catch(() => undefined)]);
          }
        } finally {
          // The workflow cancels the hold when it ends the session; the page must not outlive it.
          if (reason === undefined) session.end('the session ended');
        }
        return { reason: reason ?? 'the session ended' };
      });
    },

    async closeBrowserSession(input: CloseSessionInput): Promise<{ profileSaved: boolean }> {
      return atActivityBoundary(async () => {
        const session = liveSessionsOf(deps).get(input.sessionId);
        if (!session) return { profileSaved: false };
        let profileSaved = false;
        try {
          if (input.profile?.saveChanges) {
            const state = await session.page.context().storageState();
            profileSaved = await saveProfile(deps.db, deps.profileKey, input.teamId, input.profile.name, state, session.startState);
          }
        } finally {
          session.end('the session was closed');
        }
        return { profileSaved };
      });
    },

    async finishBrowserSession(input: FinishSessionInput): Promise<FinishSessionResult> {
      return atActivityBoundary(async () => {
        const session = await readSessionBilling(deps.db, input.sessionId);
        // A retry after the commit below: the session was billed then.
        if (session.status !== 'active') return { credits: session.credits_billed ?? 0 };
        const cost = input.billable ? browserSessionCredits(input.aliveMs, session.used_prompt) : 0;
        const credits = await endSessionBilled(input, cost);
        await releaseSlots(deps.db, { teamId: input.teamId, leaseId: input.sessionId });
        return { credits };
      });
    },
  };

  /**
   * Ends the session and its job, billed `cost` or, for a session that outran the team's credits,
   * what is left: it is over either way. The balance is read outside the charge's lock, so a page
   * charged in between can refuse the charge: read again and bill what is left then, rather than
   * fail and leave the session active (it would hold a place of the team's concurrency for good).
   */
  async function endSessionBilled(input: FinishSessionInput, cost: number): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const { planRow, usage } = await readTeamStanding(deps.db, input.teamId);
      const plan = resolvePlan(planRow);
      const credits = Math.min(cost, creditsLeft(plan.monthlyCredits, usage.used));
      const end = { status: input.status, reason: input.reason, durationMs: Math.round(input.aliveMs), credits };
      const charge = { teamId: input.teamId, jobId: input.sessionId, chargeKey: `browser:${input.sessionId}`, reason: 'browser', credits };
      try {
        await chargeWith(deps.db, plan, charge, async (trx) => {
          await endBrowserSession(trx, input.sessionId, end);
          await finishJob(trx, input.sessionId, input.status === 'lost' ? 'failed' : 'completed', input.status === 'lost' ? { error: input.reason } : {});
        });
        return credits;
      } catch (err) {
        if (attempt >= MAX_BILLING_ATTEMPTS || !(err instanceof TrawlError && err.code === 'INSUFFICIENT_CREDITS')) throw err;
      }
    }
  }
}
