/**
 * The team's concurrency limit, held around the fetch of each page. A page activity leases one
 * of the team's numbered slots per page in Postgres (db/repositories/concurrency-slots.ts), so the
 * limit holds across every job of the team and every worker. While the pages run, the lease is
 * renewed; each page's slot is freed when the page ends (in the transaction that stores it, where
 * it can be), the rest when the activity ends; when its worker dies the lease expires.
 *
 * Waiting is short and bounded on purpose: a waiting activity occupies a worker's activity slot,
 * so long waits would let one team's queue starve another's. Crawl pages that find no slot go
 * back to their workflow, which waits on a durable timer (workflows/page-job.ts); synchronous
 * scrapes give up with CONCURRENCY_LIMITED (429).
 */
import { randomUUID } from 'node:crypto';
import { Context, log } from '@temporalio/activity';
import { acquireSlot, releaseSlots, renewSlots, type SlotGroup, type SlotLease } from '../../db/repositories/concurrency-slots.js';
import type { Db } from '../../db/connect.js';

/** A lease outlives a dead worker by at most this long. */
export const LEASE_TTL_MS = 30_000;
/** How often a held lease is renewed: a third of its TTL, so two renewals can fail in a row. */
export const RENEW_INTERVAL_MS = 10_000;
const POLL_FIRST_MS = 100;
const POLL_MAX_MS = 500;

export const NO_SLOT = Symbol('no-slot');

export interface TeamSlotRequest {
  teamId: string;
  /** The plan's concurrency. */
  limit: number;
  /** How long to wait for a slot before giving up with NO_SLOT. */
  waitMs: number;
}

/** A lease `work` holds. */
export interface HeldSlot extends SlotLease {
  /**
   * Set by work that released the lease in its own committed transaction (as a page's result
   * does, db/repositories/documents.ts and crawl-pages.ts), which saves the separate release.
   */
  released: boolean;
  /**
   * Set by work that runs several pages one after another under the slot (a frontier slice's
   * lane, activities/crawl-slice.ts): a page's result then leaves it held for the next.
   */
  reused?: boolean;
}

/**
 * Runs `work` holding one of the team's slots, or returns NO_SLOT when none came free within
 * `waitMs`. Heartbeats while it waits, so a cancellation reaches it (as CancelledFailure). The
 * slot is renewed while `work` runs and freed after it, unless `work` released it itself.
 */
export async function withTeamSlot<T>(
  db: Db,
  request: TeamSlotRequest,
  work: (slot: HeldSlot) => Promise<T>,
): Promise<T | typeof NO_SLOT> {
  const ctx = Context.current();
  const group = { teamId: request.teamId, leaseId: randomUUID() };
  const giveUpAt = Date.now() + request.waitMs;
  let pollMs = POLL_FIRST_MS;
  let lease = await acquireSlot(db, group.teamId, request.limit, group.leaseId, LEASE_TTL_MS);
  while (!lease) {
    if (Date.now() >= giveUpAt) return NO_SLOT;
    ctx.heartbeat();
    await ctx.sleep(Math.min(pollMs, Math.max(0, giveUpAt - Date.now())));
    pollMs = Math.min(pollMs * 2, POLL_MAX_MS);
    lease = await acquireSlot(db, group.teamId, request.limit, group.leaseId, LEASE_TTL_MS);
  }

  const held: HeldSlot = { ...lease, released: false };
  const renewal = setInterval(() => void renewLease(db, group, () => !held.released), RENEW_INTERVAL_MS);
  try {
    return await work(held);
  } finally {
    clearInterval(renewal);
    // A failed release is not the pages' failure: the lease expires on its own.
    if (!held.released) {
      await releaseSlots(db, group).catch((err: unknown) =>
        log.warn('team slot: release failed', { teamId: group.teamId, error: String(err) }),
      );
    }
  }
}

/**
 * Renews a held lease. A failure is logged, not thrown: the holder's work is fine, and the lease
 * outlives a missed renewal or two. `stillHeld` tells an expiry apart from a lease let go meanwhile.
 */
export async function renewLease(db: Db, group: SlotGroup, stillHeld: () => boolean = () => true): Promise<void> {
  try {
    const kept = await renewSlots(db, group, LEASE_TTL_MS);
    // Only after a stall longer than the TTL; the work finishes, one over the limit for a moment.
    if (kept === 0 && stillHeld()) log.warn('team slot: lease expired while held', { teamId: group.teamId });
  } catch (err) {
    log.warn('team slot: renewal failed', { teamId: group.teamId, error: String(err) });
  }
}
