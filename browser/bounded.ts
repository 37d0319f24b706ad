/** A bound on browser operations, some of which Playwright leaves pending forever on a dead browser. */
import { PageError } from '../lib/errors.js';

export const noop = (): void => {};

interface BoundOptions<T> {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Names the operation in the timeout error. */
  what?: string;
  /** Disposes of a result that arrives after the caller gave up on it. */
  discard?: (late: T) => void;
}

/** Settles with `work`, or earlier with the signal's reason or a timeout. */
export function bounded<T>(work: Promise<T>, { signal, timeoutMs, what = 'browser operation', discard }: BoundOptions<T>): Promise<T> {
  const abandon = (): void => {
    work.then(discard ?? noop, noop);
  };
  if (signal?.aborted) {
    abandon();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      cleanup();
      abandon();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        cleanup();
        abandon();
        reject(new PageError('SERVICE_UNAVAILABLE', `${what} took longer than ${timeoutMs} ms`));
      }, timeoutMs);
    }
    work.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (err: unknown) => {
        cleanup();
        reject(err);
      },
    );
  });
}
