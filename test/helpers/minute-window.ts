import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Rate limits count in whole clock minutes (db/repositories/rate-limits.ts): a burst that must
 * reach a limit starts early enough in one to finish inside it, or the count starts again halfway.
 */
export async function awayFromMinuteBoundary(secondsNeeded = 20): Promise<void> {
  const now = new Date();
  const intoMinute = now.getUTCSeconds() + now.getUTCMilliseconds() / 1000;
  if (intoMinute > 60 - secondsNeeded) await sleep((60 - intoMinute + 0.5) * 1000);
}
