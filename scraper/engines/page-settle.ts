/**
 * When a rendered page counts as settled, so its DOM can be captured.
 *
 * After `load`, client-side rendering usually fetches its data at once; the page counts as
 * settled once no request has started or ended for SETTLE_QUIET_MS, and at least SETTLE_MIN_MS
 * after `load`, so fetches a load handler or the next frames start are seen. The quiet time
 * counts from the last network activity, not from `load`: a page whose document arrived a while
 * before its load event has been quiet that long already. Long polls and beacons would keep it
 * busy forever, hence the cap. (It was 250 ms of quiet after `load`, about half of a JavaScript
 * scrape's time on the bench site; see bench/RESULTS.md.)
 *
 * A page can also prove it has gone quiet, which ends the settle at SETTLE_MIN_MS instead (see
 * `idleProof`): most pages that render from an inline script or one early fetch do.
 */
import type { CDPSession, Page } from '../../browser/browser-pool.js';

export const SETTLE_QUIET_MS = 100;
export const SETTLE_MIN_MS = 50;
export const SETTLE_MAX_MS = 1_500;
/** After an action: this long after it, and as long without network activity. */
export const ACTION_SETTLE_MS = 250;

/**
 * Chromium gives an idle callback at most 50 ms, and less when a timer (or other delayed task of
 * the page's thread) is due sooner; this much left means nothing is due for this long.
 */
const IDLE_PROOF_MS = 45;

/**
 * What the probe answers: `idle` (no script running, no frame pending, no timer due within
 * IDLE_PROOF_MS, no request started), `busy` (ask again), `unprovable` (this page cannot prove it).
 */
export type IdleAnswer = 'idle' | 'busy' | 'unprovable';

export interface IdleProof {
  prove(): Promise<IdleAnswer>;
  /** Stops watching the page's requests on its CDP session. */
  stop(): Promise<void>;
}

/**
 * Idle periods a probe waits through for one that starts with IDLE_PROOF_MS free, before it
 * answers `busy`: a page with a timer always due soon gets asked again every few periods.
 */
const IDLE_PERIODS = 3;

/**
 * Free periods in a row a proof needs. One says nothing is due within IDLE_PROOF_MS, but a period
 * is at most 50 ms long, so a timer due 45 to 50 ms away (one a script set just before the probe)
 * hides behind it, and the page was captured before it ran. The next period starts after that
 * timer has run, and is free only if the timer set nothing due soon in turn.
 */
const PROOFS_IN_A_ROW = 2;

/**
 * Chromium sets an idle period's deadline when the period starts, and every callback run in it
 * shares that deadline: a probe that arrives 20 ms into a quiet 50 ms period is told 30 ms, which
 * proves nothing. Answering that as `busy` made the settle ask again at once, for as long as the
 * period lasted: 20 to 90 probes per page on the bench site, each a protocol round trip through the
 * browser, Node and the page's main thread while the page waited. A callback posted from an idle
 * callback runs in the next period, so the probe waits for a fresh one in the page instead.
 *
 * No `timeout`: Chromium leaves a callback's timeout task pending after the callback has run, and
 * each would cut the next probes' deadlines short. A page never idle leaves its probe unanswered
 * until the settle ends on its quiet window and the page's reset replaces the document.
 */
const IDLE_PROBE = `new Promise((resolve) => {
  let periods = 0;
  let proven = 0;
  const check = (deadline) => {
    const left = deadline.timeRemaining();
    if (left >= ${IDLE_PROOF_MS}) {
      if (++proven >= ${PROOFS_IN_A_ROW}) return resolve(left);
    } else {
      proven = 0;
      if (++periods >= ${IDLE_PERIODS}) return resolve(left);
    }
    requestIdleCallback(check);
  };
  requestIdleCallback(check);
})`;

/**
 * A proof that the page has gone quiet: Chromium runs an idle callback only when the page's main
 * thread has nothing to do, and stops its deadline short of the next timer due, so a callback
 * with IDLE_PROOF_MS left means no script runs now and none is due for that long. Requests are
 * watched on the page's CDP session as well, because its events reach us in order with the
 * callback's answer: a fetch a script started just before going idle is seen before the proof,
 * whereas Playwright's request events travel on another session and may arrive after it. Timers
 * in workers and in other frames (which may run on other threads) are out of sight, so a page
 * with either cannot prove anything and waits for the quiet window.
 */
export async function idleProof(page: Page, cdp: CDPSession): Promise<IdleProof> {
  let requests = 0;
  const onRequest = (): void => {
    requests++;
  };
  cdp.on('Network.requestWillBeSent', onRequest);
  try {
    await cdp.send('Network.enable');
  } catch (err) {
    cdp.off('Network.requestWillBeSent', onRequest);
    throw err;
  }
  return {
    prove: async () => {
      if (page.frames().length > 1 || page.workers().length > 0) return 'unprovable';
      const before = requests;
      let left: unknown;
      try {
        ({ result: { value: left } } = await cdp.send('Runtime.evaluate', { expression: IDLE_PROBE, awaitPromise: true, returnByValue: true }));
      } catch {
        // A navigation replaced the document: the new one settles on the quiet window.
        return 'unprovable';
      }
      return requests === before && typeof left === 'number' && left >= IDLE_PROOF_MS ? 'idle' : 'busy';
    },
    stop: async () => {
      cdp.off('Network.requestWillBeSent', onRequest);
      await cdp.send('Network.disable').catch(() => undefined);
    },
  };
}

export interface NetworkQuiet {
  /**
   * Resolves once no request is in flight and none started or ended for `quietMs`, and `minMs`
   * have passed; or, with `proof`, as soon as it answers `idle` to a probe started at least
   * `minMs` in, with no request in flight or network activity since the probe started; or after
   * `maxMs` regardless.
   */
  wait(quietMs: number, minMs: number, maxMs: number, signal: AbortSignal, proof?: IdleProof): Promise<void>;
}

export function watchNetwork(page: Page): NetworkQuiet {
  let inFlight = 0;
  let lastActivity = performance.now();
  /** Network events so far: a probe counts only if none came while it ran. */
  let activity = 0;
  const listeners = new Set<() => void>();
  const changed = (): void => {
    lastActivity = performance.now();
    activity++;
    listeners.forEach((listener) => listener());
  };
  page.on('request', () => {
    inFlight++;
    changed();
  });
  const ended = (): void => {
    inFlight = Math.max(0, inFlight - 1);
    changed();
  };
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  return {
    wait: (quietMs, minMs, maxMs, signal, proof) =>
      new Promise<void>((resolve, reject) => {
        const earliest = performance.now() + minMs;
        let quietTimer: NodeJS.Timeout | undefined;
        let probeTimer: NodeJS.Timeout | undefined;
        let probing = false;
        let provable = proof !== undefined;
        let done = false;
        const finish = (): void => {
          done = true;
          clearTimeout(quietTimer);
          clearTimeout(probeTimer);
          clearTimeout(maxTimer);
          listeners.delete(onChange);
          signal.removeEventListener('abort', onAbort);
        };
        const probe = (): void => {
          if (!proof || !provable || probing || done) return;
          probing = true;
          const since = activity;
          void proof.prove().then((answer) => {
            probing = false;
            if (done) return;
            if (answer === 'unprovable') provable = false;
            // With a request in flight, the next change probes again once it has ended.
            else if (inFlight > 0) return;
            else if (answer === 'idle' && since === activity) {
              finish();
              resolve();
            } else probe();
          });
        };
        const onChange = (): void => {
          clearTimeout(quietTimer);
          clearTimeout(probeTimer);
          if (inFlight > 0) return;
          const now = performance.now();
          quietTimer = setTimeout(() => {
            finish();
            resolve();
          }, Math.max(0, Math.max(lastActivity + quietMs, earliest) - now));
          probeTimer = setTimeout(probe, Math.max(0, earliest - now));
        };
        const onAbort = (): void => {
          finish();
          reject(signal.reason);
        };
        const maxTimer = setTimeout(() => {
          finish();
          resolve();
        }, maxMs);
        signal.addEventListener('abort', onAbort, { once: true });
        listeners.add(onChange);
        onChange();
      }),
  };
}
