import { Context } from '@temporalio/activity';
import { deadlineSignal } from '../../lib/deadline-signal.js';

/** Heartbeats must arrive well inside the 20 s heartbeat timeout set in workflows/activities.ts. */
export const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * Runs page work with a heartbeat and one AbortSignal for both ways a page stops early: its
 * deadline and a Temporal cancellation (which an activity only learns of through heartbeats).
 */
export async function withPageSignal<T>(deadline: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const heartbeat = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
  const bounded = deadlineSignal(ctx.cancellationSignal, deadline - Date.now());
  try {
    return await work(bounded.signal);
  } finally {
    clearInterval(heartbeat);
    bounded.clear();
  }
}

/** The running activity's cancellation; none outside an activity (the API, unit tests). */
export function activityCancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
