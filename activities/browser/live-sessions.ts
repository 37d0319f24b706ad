/**
 * A worker's live browser sessions. Each holds one page of the worker's session browser (its own
 * Chromium, apart from the one that scrapes, so a tenant's long session never takes a scrape's
 * page) for as long as the session lasts; the page's context is dedicated, closed at the end and
 * never reset for another caller. The sessions' activities reach them here through the worker's
 * own task queue (`taskQueue`): a live page exists in one process only.
 */
import type { BrowserPool, Page, PageOptions, StorageState } from '../../browser/browser-pool.js';
import type { Sandbox } from '../../sandbox/client.js';

export type { StorageState };

export interface LiveSession {
  readonly id: string;
  readonly teamId: string;
  readonly page: Page;
  /** The profile's state the page started from: a save merges only what changed since. */
  readonly startState?: StorageState;
  /** Resolves with the reason once the session's page is gone (closed, or its browser lost). */
  readonly ended: Promise<string>;
  end(reason: string): void;
  /** Executes run one at a time: each waits for the one before. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** The next replay frame's number: the session lives in this process only, so it counts here. */
  nextFrame(): number;
}

export interface LiveSessions {
  /** This worker's own task queue, which only it polls. */
  readonly taskQueue: string;
  readonly sandbox: Sandbox;
  open(spec: { id: string; teamId: string; storageState?: StorageState; page?: PageOptions }): Promise<LiveSession>;
  get(id: string): LiveSession | undefined;
  /** Ends every session (the worker is stopping); their workflows see them lost. */
  closeAll(): void;
}

/** Thrown when the worker holds as many sessions as it may: the request is answered at once, not queued. */
export class NoSessionCapacity extends Error {}

export function createLiveSessions(options: { browser: BrowserPool; sandbox: Sandbox; taskQueue: string; capacity: number }): LiveSessions {
  const live = new Map<string, LiveSession>();
  let opening = 0;

  function open(spec: { id: string; teamId: string; storageState?: StorageState; page?: PageOptions }): Promise<LiveSession> {
    if (live.size + opening >= options.capacity) return Promise.reject(new NoSessionCapacity(`this worker holds ${options.capacity} browser sessions already`));
    opening++;
    return new Promise<LiveSession>((resolve, reject) => {
      let opened: LiveSession | undefined;
      const held = options.browser.withPage({ ...spec.page, storageState: spec.storageState, dedicated: true, blockAds: true }, async (page) => {
        let end!: (reason: string) => void;
        const ended = new Promise<string>((done) => (end = done));
        let queue: Promise<unknown> = Promise.resolve();
        let frames = 0;
        opened = {
          id: spec.id,
          teamId: spec.teamId,
          page,
          startState: spec.storageState,
          ended,
          end,
          exclusive: (work) => {
            const next = queue.then(work, work);
            queue = next.catch(() => undefined);
            return next;
          },
          nextFrame: () => frames++,
        };
        page.once('close', () => end('the page closed'));
        page.once('crash', () => end('the page crashed'));
        live.set(spec.id, opened);
        opening--;
        resolve(opened);
        return ended;
      });
      held
        .catch((err: unknown) => {
          if (opened) return opened.end(`the browser was lost: ${String(err)}`);
          opening--;
          reject(err);
        })
        .finally(() => live.delete(spec.id));
    });
  }

  return {
    taskQueue: options.taskQueue,
    sandbox: options.sandbox,
    open,
    get: (id) => live.get(id),
    closeAll: () => {
      for (const session of live.values()) session.end('the worker is stopping');
    },
  };
}
