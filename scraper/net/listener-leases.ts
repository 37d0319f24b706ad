/**
 * Listeners opened on demand, one per key, shared by the pages that hold a lease on it: the guard
 * proxy's listeners for callers' own proxies (guard-proxy.ts), whose URLs nobody knows in advance.
 * Each listener is a port and a file descriptor of the worker, so they are bounded: at most `max`
 * are open, one nobody holds closes after `idleMs`, and when the bound is reached the least
 * recently used idle one makes room. Held listeners are never closed under a page; pages are
 * bounded by the browser pools' slots, so with `max` above those slots a lease always finds room.
 */
import { PageError } from '../../lib/errors.js';

export interface Listener {
  url: string;
  close(): Promise<void>;
}

export interface ListenerLease {
  url: string;
  /** The page is done with it; call once. */
  release(): void;
}

export interface ListenerLeases {
  acquire(key: string): Promise<ListenerLease>;
  /** Listeners open now, held or idle. */
  size(): number;
  close(): Promise<void>;
}

export interface ListenerLeasesOptions {
  open(key: string): Promise<Listener>;
  /** @default 32 */
  max?: number;
  /** @default 60_000 */
  idleMs?: number;
}

interface Entry {
  listener: Promise<Listener>;
  holders: number;
  idleTimer?: NodeJS.Timeout;
}

export function createListenerLeases({ open, max = 32, idleMs = 60_000 }: ListenerLeasesOptions): ListenerLeases {
  // A Map iterates in insertion order: re-inserting an entry when taken and when released keeps the least recently used first.
  const entries = new Map<string, Entry>();
  let closed = false;

  const closeEntry = (key: string, entry: Entry): Promise<void> => {
    clearTimeout(entry.idleTimer);
    if (entries.get(key) === entry) entries.delete(key);
    return entry.listener.then(
      (listener) => listener.close(),
      () => undefined,
    );
  };

  const makeRoom = (): void => {
    if (entries.size < max) return;
    const idle = [...entries].find(([, entry]) => entry.holders === 0);
    if (!idle) throw new PageError('SERVICE_UNAVAILABLE', `This worker has ${max} callers' proxies in use; try again shortly`);
    void closeEntry(...idle);
  };

  const touch = (key: string, entry: Entry): void => {
    entries.delete(key);
    entries.set(key, entry);
  };

  const entryFor = (key: string): Entry => {
    const known = entries.get(key);
    if (known) {
      touch(key, known);
      return known;
    }
    makeRoom();
    const entry: Entry = { listener: open(key), holders: 0 };
    entries.set(key, entry);
    // A listener that failed to open is forgotten, so the next page tries afresh.
    void entry.listener.catch(() => entries.get(key) === entry && entries.delete(key));
    return entry;
  };

  return {
    async acquire(key) {
      if (closed) throw new PageError('SERVICE_UNAVAILABLE', 'The guard proxy is closed');
      const entry = entryFor(key);
      entry.holders++;
      clearTimeout(entry.idleTimer);
      let listener: Listener;
      try {
        listener = await entry.listener;
      } catch (err) {
        entry.holders--;
        throw err;
      }
      let released = false;
      return {
        url: listener.url,
        release: () => {
          if (released) return;
          released = true;
          if (--entry.holders > 0 || entries.get(key) !== entry) return;
          // Last used now: idle listeners make room in the order they went idle.
          touch(key, entry);
          entry.idleTimer = setTimeout(() => void closeEntry(key, entry), idleMs);
          entry.idleTimer.unref();
        },
      };
    },
    size: () => entries.size,
    close: async () => {
      closed = true;
      await Promise.all([...entries].map(([key, entry]) => closeEntry(key, entry)));
    },
  };
}
