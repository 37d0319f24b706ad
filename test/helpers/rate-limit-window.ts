import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The e2e stacks count rate limits in hour-long windows (RATE_LIMIT_WINDOW_SECONDS): a burst that
 * must reach a limit then falls in one window unless it starts in an hour's last seconds. With
 * production's minute, about a third of such tests had to wait for the next minute first.
 */
export const E2E_RATE_LIMIT_WINDOW_SECONDS = 3600;

/**
 * Windows start at whole multiples of their length (db/repositories/rate-limits.ts): a burst that
 * must reach a limit starts early enough in one to finish inside it, or the count starts again halfway.
 */
export async function awayFromWindowEdge(secondsNeeded = 20, windowSeconds = E2E_RATE_LIMIT_WINDOW_SECONDS): Promise<void> {
  const into = (Date.now() / 1000) % windowSeconds;
  if (into > windowSeconds - secondsNeeded) await sleep((windowSeconds - into + 0.5) * 1000);
}
