/**
 * The browser pool, the one way to Playwright for the rest of Trawl. It owns Chromium's lifecycle:
 * a lazy launch, a cap on concurrent pages, retirement after N pages, relaunch after a crash,
 * closing when idle, and a bound on every browser operation (bounded.ts). Callers get pages only
 * through `withPage`. Its options and types are in pool-types.ts, the launch flags in
 * chromium-args.ts, what each page's context is created with in page-contexts.ts.
 *
 * Each page lives alone in its own browser context, and is kept warm between calls: after a call
 * the page is reset (browser/warm-pages.ts: its document ended, cookies, origin storage, HTTP
 * cache, history, permissions, listeners and routes cleared) and serves the next call whose
 * context options match; once the browser holds as many pages as it has slots, a call waits for a
 * page of its options that is still being reset rather than open one more. A reused page renders
 * the bench site's JavaScript pages with about half the CPU of a fresh context. A page that
 * cannot be reset fully (HTTP credentials went through it, it crashed, its reset failed, or its
 * call was abandoned mid-way) is closed with its context.
 * Pages for an upstream `proxy` always get a fresh context (see `contextKeyOf`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { z } from 'zod';
import { firstLineOf, PageError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';
import { bounded, noop } from './bounded.js';
import { CHROMIUM_ARGS } from './chromium-args.js';
import { BROWSER_MARKER_ENV, browserCommandLine, killChromium } from './chromium-processes.js';
import { contextKeyOf, contextOptionsFor, desktopUserAgent, installContentBlocker } from './page-contexts.js';
import { createPageSlots } from './page-slots.js';
import type { BrowserPool, BrowserPoolOptions, ContentBlocker, PageOptions } from './pool-types.js';
import { openWarmPage, resetWarmPage, useHeaders, type WarmPage } from './warm-pages.js';
import { webRtcPolicyProblem } from './webrtc-policy.js';

export type { CDPSession, Frame, Page, Response as PageResponse } from 'playwright-core';
export type { BlockableRequest, BrowserPool, BrowserPoolOptions, BrowserPoolStats, ContentBlocker, PageOptions, StorageState } from './pool-types.js';
export { CHROMIUM_ARGS } from './chromium-args.js';

const optionsSchema = z.strictObject({
  executablePath: z.string().min(1).default('/usr/bin/chromium'),
  maxConcurrentPages: z.number().int().positive().default(4),
  retireAfterPages: z.number().int().positive().default(200),
  idleCloseSecs: z.number().nonnegative().default(120),
  operationTimeoutMs: z.number().int().positive().default(15_000),
  proxyServer: z.url({ protocol: /^https?$/ }).optional(),
  proxyServerFor: z.custom<(upstream: string) => string>((value) => typeof value === 'function').optional(),
  callerProxyServer: z.custom<NonNullable<BrowserPoolOptions['callerProxyServer']>>((value) => typeof value === 'function').optional(),
  contentBlocker: z.custom<ContentBlocker>().optional(),
  log: z.custom<Logger>().optional(),
});

/** One launched Chromium. */
interface Launched {
  browser: Browser;
  /** Value of the environment marker, `<poolId>/<n>`. */
  marker: string;
  desktopUserAgent: string;
  pagesStarted: number;
  openContexts: number;
  /** Takes no new pages; closes once its open contexts are done. */
  retired: boolean;
  /** Reset pages waiting for their next call, oldest first. */
  warm: WarmPage[];
  /** Pages of each context key being reset after their call, which a call for that key may wait for. */
  resetting: Map<string, number>;
  /** Calls waiting for one of those pages, per key, oldest first; `undefined` sends one to a new context. */
  awaiting: Map<string, ((warm: WarmPage | undefined) => void)[]>;
  /**
   * Aborted when the browser disconnects. Playwright leaves some calls on a dead browser
   * (newPage among them) pending forever, so every operation races this.
   */
  lost: AbortController;
  closing?: Promise<void>;
}


export function createBrowserPool(options: BrowserPoolOptions = {}): BrowserPool {
  const opts = optionsSchema.parse(options);
  const { log } = opts;
  const id = randomUUID();
  const slots = createPageSlots(opts.maxConcurrentPages);
  const live = new Set<Launched>();
  const args = opts.proxyServer
    ? // Chromium never proxies loopback unless told to; the guard proxy must see those requests too.
      [...CHROMIUM_ARGS, `--proxy-server=${opts.proxyServer}`, '--proxy-bypass-list=<-loopback>']
    : CHROMIUM_ARGS;

  let current: Launched | undefined;
  let launching: Promise<Launched> | undefined;
  let launchSeq = 0;
  let launches = 0;
  let crashes = 0;
  let pagesServed = 0;
  let pagesReused = 0;
  let openPages = 0;
  let closed = false;
  let closeAll: Promise<void> | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const backgroundCloses = new Set<Promise<void>>();
  /** Pages being reset (or closed) after their call, each holding its slot. */
  const recycling = new Set<Promise<void>>();

  const closedError = (): PageError => new PageError('SERVICE_UNAVAILABLE', 'The browser pool is closed');

  function upstreamListener(upstream: string): string {
    if (!opts.proxyServerFor) throw new PageError('SERVICE_UNAVAILABLE', 'This browser pool has no route to upstream proxies');
    return opts.proxyServerFor(upstream);
  }

  /** The listener a page through a caller's own proxy is held to, until its context is closed. */
  async function callerListener({ proxy, vetProxy }: PageOptions): Promise<{ url: string; release(): void } | undefined> {
    if (proxy === undefined || !vetProxy) return undefined;
    if (!opts.callerProxyServer) throw new PageError('SERVICE_UNAVAILABLE', "This browser pool has no route to callers' proxies");
    return opts.callerProxyServer(proxy);
  }

  function retire(launched: Launched): void {
    launched.retired = true;
    // Its warm pages close with it; none may take a new call meanwhile.
    launched.warm.length = 0;
    if (current === launched) current = undefined;
  }

  function closeBrowser(launched: Launched): Promise<void> {
    launched.closing ??= (async () => {
      retire(launched);
      try {
        await bounded(launched.browser.close(), { timeoutMs: opts.operationTimeoutMs, what: 'closing the browser' });
      } catch (err) {
        log?.warn({ marker: launched.marker, err: firstLineOf(err) }, 'browser-pool: browser did not close, killing it');
        killChromium(launched.marker);
      }
      live.delete(launched);
    })();
    return launched.closing;
  }

  function closeInBackground(launched: Launched): void {
    const task = closeBrowser(launched);
    backgroundCloses.add(task);
    void task.finally(() => backgroundCloses.delete(task));
  }

  function onDisconnected(launched: Launched): void {
    launched.lost.abort(new PageError('SERVICE_UNAVAILABLE', 'The browser disconnected'));
    if (launched.closing) return;
    crashes++;
    log?.warn({ marker: launched.marker }, 'browser-pool: browser disconnected; the next page launches a new one');
    retire(launched);
    live.delete(launched);
    // A crashed browser can leave helpers behind; they must not accumulate across relaunches.
    killChromium(launched.marker);
  }

  async function launch(): Promise<Launched> {
    const marker = `${id}/${++launchSeq}`;
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: opts.executablePath,
        headless: true,
        args: [...args],
        env: { ...process.env, [BROWSER_MARKER_ENV]: marker },
        timeout: opts.operationTimeoutMs,
        // The worker shuts down gracefully on signals and then calls close(); Playwright must not
        // kill the browser under pages that are still finishing.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      killChromium(marker);
      throw new PageError('SERVICE_UNAVAILABLE', `Chromium failed to launch: ${firstLineOf(err)}`, { cause: err });
    }
    // Flags an operator's wrapper adds after Trawl's would win; such a browser renders nothing.
    const argv = browserCommandLine(marker);
    const problem = argv && webRtcPolicyProblem(argv);
    if (problem) {
      await bounded(browser.close(), { timeoutMs: opts.operationTimeoutMs, what: 'closing the browser' }).catch(() => undefined);
      killChromium(marker);
      log?.error({ marker, problem }, 'browser-pool: refusing a browser whose WebRTC could bypass the guard proxy');
      throw new PageError('SERVICE_UNAVAILABLE', `Chromium's flags let WebRTC bypass the guard proxy (${problem}); remove the operator flag that does this`);
    }
    const launched: Launched = {
      browser,
      marker,
      desktopUserAgent: desktopUserAgent(browser.version()),
      pagesStarted: 0,
      openContexts: 0,
      retired: false,
      warm: [],
      resetting: new Map(),
      awaiting: new Map(),
      lost: new AbortController(),
    };
    browser.on('disconnected', () => onDisconnected(launched));
    live.add(launched);
    launches++;
    log?.info({ marker, version: browser.version() }, 'browser-pool: launched');
    return launched;
  }

  function browserForNextPage(): Promise<Launched> {
    if (current && !current.retired && current.browser.isConnected()) return Promise.resolve(current);
    launching ??= launch()
      .then((launched) => {
        current = launched;
        // The caller that started the launch may have given up meanwhile.
        scheduleIdleClose();
        return launched;
      })
      .finally(() => {
        launching = undefined;
      });
    return launching;
  }

  function scheduleIdleClose(): void {
    clearTimeout(idleTimer);
    if (closed || slots.inUse > 0 || !current) return;
    const idle = current;
    idleTimer = setTimeout(() => {
      if (slots.inUse === 0 && current === idle) {
        log?.info({ marker: idle.marker }, 'browser-pool: closing idle browser');
        closeInBackground(idle);
      }
    }, opts.idleCloseSecs * 1000);
    idleTimer.unref();
  }

  async function closeContext(context: BrowserContext, launched: Launched): Promise<void> {
    if (!launched.browser.isConnected()) return;
    try {
      await bounded(context.close(), {
        signal: launched.lost.signal,
        timeoutMs: opts.operationTimeoutMs,
        what: 'closing a context',
      });
    } catch (err) {
      if (!launched.browser.isConnected()) return;
      // A context that cannot be closed means a wedged browser; replace it rather than reuse it.
      log?.warn({ marker: launched.marker, err: firstLineOf(err) }, 'browser-pool: context did not close, retiring browser');
      closeInBackground(launched);
    }
  }

  /** A reset page of this browser for `key`, most recently used first (its caches are warmest). */
  function takeWarm(launched: Launched, key: string): WarmPage | undefined {
    for (let i = launched.warm.length - 1; i >= 0; i--) {
      if (launched.warm[i]!.key === key) return launched.warm.splice(i, 1)[0];
    }
    return undefined;
  }

  /**
   * A page of `key` that is being reset, once it is, or undefined when none is left for this call.
   * Only a browser that already holds its fill of pages waits: below it, a new context is a page
   * the pool keeps (back-to-back calls alternate between two warm pages instead of each waiting
   * for the last one's reset). At it, a new context would push a warm page out, so with mixed
   * context options every slot freed by a page of other options while one of the caller's own
   * was resetting cost a context (about 260 ms of Chromium CPU, against about 85 for a reuse).
   */
  function awaitResetting(launched: Launched, key: string, signal: AbortSignal): Promise<WarmPage | undefined> {
    const queue = launched.awaiting.get(key) ?? [];
    if ((launched.resetting.get(key) ?? 0) <= queue.length) return Promise.resolve(undefined);
    launched.awaiting.set(key, queue);
    let hand!: (warm: WarmPage | undefined) => void;
    const handed = new Promise<WarmPage | undefined>((resolve) => (hand = resolve));
    const leave = (): void => {
      const at = queue.indexOf(hand);
      if (at !== -1) queue.splice(at, 1);
      hand(undefined);
    };
    queue.push(hand);
    signal.addEventListener('abort', leave, { once: true });
    void handed.then(() => signal.removeEventListener('abort', leave));
    return bounded(handed, {
      signal,
      discard: (late) => late && (closed || launched.retired ? void closeContext(late.context, launched) : shelve(launched, late)),
    });
  }

  /** Hands a reset page to the oldest call waiting for its key, or keeps it warm. */
  function shelve(launched: Launched, warm: WarmPage): void {
    const waiter = launched.awaiting.get(warm.key)?.shift();
    if (waiter) return waiter(warm);
    launched.warm.push(warm);
    // Pages waiting for options nobody asks for any more make room for those in use.
    while (launched.warm.length > opts.maxConcurrentPages) void closeContext(launched.warm.shift()!.context, launched);
  }

  /** Calls waiting for more pages of `key` than are still being reset go to new contexts. */
  function releaseSurplusWaiters(launched: Launched, key: string): void {
    const queue = launched.awaiting.get(key);
    while (queue && queue.length > (launched.resetting.get(key) ?? 0)) queue.pop()!(undefined);
    if (queue?.length === 0) launched.awaiting.delete(key);
  }

  async function openPage(launched: Launched, pageOptions: PageOptions, signal: AbortSignal, callerProxyServer?: string): Promise<WarmPage> {
    const proxyServer = callerProxyServer ?? (pageOptions.proxy === undefined ? undefined : upstreamListener(pageOptions.proxy));
    const contextOptions = contextOptionsFor(pageOptions, launched.desktopUserAgent, proxyServer);
    const blockAds = Boolean(pageOptions.blockAds && opts.contentBlocker);
    const key = contextKeyOf(contextOptions, blockAds, pageOptions.dedicated);
    // openContexts counts this call, which holds no page yet.
    const full = launched.openContexts - 1 + launched.warm.length >= opts.maxConcurrentPages;
    const warm = key === undefined ? undefined : (takeWarm(launched, key) ?? (full ? await awaitResetting(launched, key, signal) : undefined));
    if (warm) {
      pagesReused++;
      return warm;
    }
    const bound = { signal, timeoutMs: opts.operationTimeoutMs };
    const context = await bounded(launched.browser.newContext(contextOptions), {
      ...bound,
      what: 'creating a context',
      discard: (late) => void late.close().catch(noop),
    });
    try {
      if (blockAds) {
        await bounded(installContentBlocker(context, opts.contentBlocker!), { ...bound, what: 'installing the content blocker' });
      }
      const opened = await bounded(openWarmPage(context, key ?? '', contextOptions.viewport ?? null), { ...bound, what: 'opening a page' });
      if (key === undefined) opened.spoiled = 'its context is not shared (an upstream proxy, a profile, or a dedicated page)';
      return opened;
    } catch (err) {
      await closeContext(context, launched);
      throw err;
    }
  }

  /**
   * After a call: reset the page and keep it warm, or close its context; then give the slot back.
   * Runs after `withPage` has resolved, so the reset does not add to the caller's latency.
   */
  async function recycle(warm: WarmPage, launched: Launched, callbackSettled: boolean): Promise<void> {
    if (!callbackSettled) warm.spoiled ??= 'its call was abandoned while still using the page';
    const { key } = warm;
    // Counted before the first await, so a call that starts as soon as this one returns sees it.
    const mayReturn = !warm.spoiled && !closed && !launched.retired;
    if (mayReturn) launched.resetting.set(key, (launched.resetting.get(key) ?? 0) + 1);
    let reusable = false;
    if (mayReturn && launched.browser.isConnected()) {
      try {
        reusable = await bounded(resetWarmPage(warm), {
          signal: launched.lost.signal,
          timeoutMs: opts.operationTimeoutMs,
          what: 'resetting a page',
        });
      } catch (err) {
        log?.debug({ marker: launched.marker, err: firstLineOf(err) }, 'browser-pool: page reset failed, closing its context');
      }
    }
    if (mayReturn) launched.resetting.set(key, launched.resetting.get(key)! - 1);
    const keep = reusable && !closed && !launched.retired;
    if (keep) shelve(launched, warm);
    releaseSurplusWaiters(launched, key);
    if (!keep) {
      if (warm.spoiled) log?.debug({ marker: launched.marker, reason: warm.spoiled }, 'browser-pool: not reusing a page');
      await closeContext(warm.context, launched);
    }
  }

  async function withPage<T>(pageOptions: PageOptions, fn: (page: Page, cdp: CDPSession) => Promise<T>): Promise<T> {
    if (closed) throw closedError();
    const { signal } = pageOptions;
    // A caller holding a page back that asks for another (a retry through another proxy) lets the
    // first one's reset go: the slot it holds may be the one the new page waits for.
    const deferral = deferring.getStore();
    if (deferral?.holding) deferral.settle();
    const release = await slots.acquire(signal);
    clearTimeout(idleTimer);
    let launched: Launched | undefined;
    let warm: WarmPage | undefined;
    let lease: { url: string; release(): void } | undefined;
    let callbackSettled = false;
    let handedOut = false;
    try {
      if (closed) throw closedError();
      // A browser retired and closed between its launch and this line cannot take the page.
      do launched = await bounded(browserForNextPage(), { signal });
      while (launched.closing);
      launched.openContexts++;
      const pageSignal = signal ? AbortSignal.any([signal, launched.lost.signal]) : launched.lost.signal;
      if (++launched.pagesStarted >= opts.retireAfterPages) {
        log?.info({ marker: launched.marker, pages: launched.pagesStarted }, 'browser-pool: retiring browser');
        retire(launched);
      }
      lease = await callerListener(pageOptions);
      warm = await openPage(launched, pageOptions, pageSignal, lease?.url);
      await bounded(useHeaders(warm, pageOptions.extraHTTPHeaders), {
        signal: pageSignal,
        timeoutMs: opts.operationTimeoutMs,
        what: 'setting the extra headers',
      });
      openPages++;
      handedOut = true;
      pagesServed++;
      const work = fn(warm.page, warm.cdp).finally(() => {
        callbackSettled = true;
      });
      return await bounded(work, { signal: pageSignal });
    } finally {
      // An abandoned call's page is no longer the caller's: recycle closes it.
      if (handedOut) openPages--;
      const done = launched;
      const page = warm;
      let deferredUntil: Promise<void> | undefined;
      if (page && deferral) {
        deferral.holding = true;
        deferredUntil = deferral.settled;
      }
      const task = (async () => {
        // Not even a microtask's pause without a deferral: the reset is counted before this call returns.
        if (deferredUntil) await deferredUntil;
        if (page && done) await recycle(page, done, callbackSettled);
        // A caller's proxy context is never reused, so recycle has closed it.
        lease?.release();
        if (done) {
          done.openContexts--;
          if (done.retired && done.openContexts === 0) closeInBackground(done);
        }
        release();
        scheduleIdleClose();
      })();
      recycling.add(task);
      void task.finally(() => recycling.delete(task));
      // Without a page there is nothing to reset: the slot is free before the call returns.
      if (!page) await task;
    }
  }

  /**
   * The `deferResets` call a release belongs to: its resets wait for `settled`, which comes when
   * the call returns, asks for another page, or the pool closes.
   */
  const deferring = new AsyncLocalStorage<{ settled: Promise<void>; settle: () => void; holding: boolean }>();
  const openDeferrals = new Set<() => void>();

  async function deferResets<T>(fn: () => Promise<T>): Promise<T> {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    openDeferrals.add(settle);
    try {
      return await deferring.run({ settled, settle, holding: false }, fn);
    } finally {
      openDeferrals.delete(settle);
      settle();
    }
  }

  async function close(): Promise<void> {
    closeAll ??= (async () => {
      closed = true;
      // Pages a deferring caller still holds back would keep close() waiting on that caller.
      for (const settle of openDeferrals) settle();
      clearTimeout(idleTimer);
      slots.rejectWaiting(closedError());
      await launching?.catch(noop);
      await Promise.all([...live].map(closeBrowser));
      await Promise.all(recycling);
      await Promise.all(backgroundCloses);
    })();
    return closeAll;
  }

  return {
    id,
    withPage,
    deferResets,
    stats: () => ({
      launches,
      crashes,
      browsersOpen: live.size,
      pagesServed,
      pagesReused,
      openPages,
      warmPages: [...live].reduce((sum, launched) => sum + launched.warm.length, 0),
      slotsInUse: slots.inUse,
      slotsWaiting: slots.waiting,
    }),
    close,
  };
}
