import { Context } from '@temporalio/activity';

/** Heartbeats must arrive well inside the 20 s heartbeat timeout set in workflows/activities.ts. */
const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * Runs page work with a heartbeat and one AbortSignal for both ways a page stops early: its
 * deadline and a Temporal cancellation (which an activity only learns of through heartbeats).
 */
export async function withPageSignal<T>(deadline: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const heartbeat = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
  const signal = AbortSignal.any([ctx.cancellationSignal, AbortSignal.timeout(Math.max(0, deadline - Date.now()))]);
  try {
    return await work(signal);
  } finally {
    clearInterval(heartbeat);
  }
}
