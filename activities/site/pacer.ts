/**
 * A job's own `delay` between its requests to a site (a map's start page and sitemaps): each call
 * resolves no sooner than `ms` after the previous one was let through, in the order the calls
 * were made, so requests issued at once still leave one at a time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export type Pace = (signal?: AbortSignal) => Promise<void>;

export function pacer(ms: number): Pace {
  let next = 0;
  return async (signal) => {
    if (ms <= 0) return;
    const start = Math.max(Date.now(), next);
    next = start + ms;
    const wait = start - Date.now();
    if (wait > 0) await sleep(wait, undefined, { signal });
  };
}
