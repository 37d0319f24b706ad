/**
 * The browser pool's admission queue: at most `size` pages at once, first come first served.
 * Chromium's throughput stops growing at about two pages per core while latency keeps growing,
 * so callers wait here instead of piling pages onto the CPU.
 */

/** Gives the slot back; calling it twice is harmless. */
export type ReleaseSlot = () => void;

export interface PageSlots {
  /** Resolves once a slot is free; rejects with the signal's reason if it aborts while queued. */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot>;
  /** Rejects everyone still queued (the pool is closing). */
  rejectWaiting(err: Error): void;
  readonly inUse: number;
  readonly waiting: number;
}

interface Waiter {
  grant: (release: ReleaseSlot) => void;
  fail: (err: unknown) => void;
}

export function createPageSlots(size: number): PageSlots {
  let inUse = 0;
  const queue: Waiter[] = [];

  const releaser = (): ReleaseSlot => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      if (next) next.grant(releaser());
      else inUse--;
    };
  };

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (inUse < size) {
        inUse++;
        return Promise.resolve(releaser());
      }
      return new Promise<ReleaseSlot>((resolve, reject) => {
        const onAbort = (): void => {
          const at = queue.indexOf(waiter);
          if (at !== -1) queue.splice(at, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant: (release) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
          fail: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        queue.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    rejectWaiting(err) {
      for (const waiter of queue.splice(0)) waiter.fail(err);
    },
    get inUse() {
      return inUse;
    },
    get waiting() {
      return queue.length;
    },
  };
}
