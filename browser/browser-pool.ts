/**
 * The only module that runs Playwright. It owns Chromium's lifecycle: a lazy launch, a cap on
 * concurrent pages, retirement after N pages, relaunch after a crash, closing when idle, and a
 * bound on every browser operation. Callers get pages only through `withPage`.
 *
 * Each page lives alone in its own browser context, and is kept warm between calls: after a call
 * the page is reset (browser/warm-pages.ts: its document ended, cookies, origin storage, HTTP
 * cache, history, permissions, listeners and routes cleared) and serves the next call whose
 * context options match. A reused page renders the bench site's JavaScript pages with about half
 * the CPU of a fresh context. A page that cannot be reset fully (HTTP credentials went through
 * it, it crashed, its reset failed, or its call was abandoned mid-way) is closed with its context.
 * Pages for an upstream `proxy` always get a fresh context (see `contextKeyOf`).
 */
import { randomUUID } from 'node:crypto';
import {
  chromium,
  devices,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Frame,
  type Page,
} from 'playwright-core';
import { z } from 'zod';
import { PageError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';
import { BROWSER_MARKER_ENV, browserCommandLine, killChromium } from './chromium-processes.js';
import { createPageSlots } from './page-slots.js';
import { openWarmPage, resetWarmPage, useHeaders, type WarmPage } from './warm-pages.js';
import { WEBRTC_POLICY_ARG, webRtcPolicyProblem } from './webrtc-policy.js';

export type { CDPSession, Frame, Page, Response as PageResponse } from 'playwright-core';

/** A request the content blocker is asked about. */
export interface BlockableRequest {
  url: string;
  /** Playwright's resource type: `script`, `image`, `xhr`, `document` (a frame), ... */
  resourceType: string;
  /** The document that made the request, which decides first/third party and `$domain=` rules. */
  documentUrl: string;
}

/**
 * What `blockAds` turns on in a page's context (see scraper/ad-block/). Each part is optional:
 * without filter lists there is nothing to match requests against, and cookie banners are still
 * handled in the page.
 */
export interface ContentBlocker {
  /** True to abort a request. Never asked about the main document. */
  blocks?(request: BlockableRequest): boolean;
  /** Runs in every frame before the page's own scripts. */
  initScript?: string;
  /** Exposed to the frames before `initScript` runs; the script talks to Node through it. */
  binding?: { name: string; handle(frame: Frame, message: unknown): Promise<void> };
}

export interface BrowserPoolOptions {
  /**
   * Chromium binary.
   * @default '/usr/bin/chromium'
   */
  executablePath?: string;
  /**
   * Pages open at once; further `withPage` calls queue. Throughput stops growing at about two
   * pages per core.
   * @default 4
   */
  maxConcurrentPages?: number;
  /**
   * Pages a browser serves before it is replaced, which bounds slow leaks in long-lived Chromium.
   * @default 200
   */
  retireAfterPages?: number;
  /**
   * Close the browser after this long without pages; the next page launches it again.
   * @default 120
   */
  idleCloseSecs?: number;
  /**
   * Bound on each browser operation (launch, new context, new page, close). A browser that does
   * not close in time is killed.
   * @default 15000
   */
  operationTimeoutMs?: number;
  /**
   * Forward proxy (`http://127.0.0.1:PORT`) that every browser request goes through, loopback
   * targets included.
   * @default undefined (direct connections)
   */
  proxyServer?: string;
  /**
   * The local proxy that chains to an upstream proxy (PageOptions.proxy), e.g. the guard
   * proxy's `urlFor`. Chromium takes one proxy per context, so each page gets the listener of
   * the upstream picked for it, credentials staying outside the browser.
   * @default undefined (pages asking for an upstream proxy fail)
   */
  proxyServerFor?: (upstream: string) => string;
  /**
   * Applied to pages opened with `blockAds`.
   * @default undefined (nothing blocked)
   */
  contentBlocker?: ContentBlocker;
  /**
   * Receives launch, retirement and crash events.
   * @default undefined (no logging)
   */
  log?: Logger;
}

/** Settings of the isolated context behind one page. */
export interface PageOptions {
  /**
   * Accept invalid and self-signed certificates.
   * @default false
   */
  ignoreHTTPSErrors?: boolean;
  /**
   * Emulate a phone with Playwright's Pixel 7 descriptor (user agent, viewport, touch, device
   * scale factor): an Android Chrome is what Chromium can pass for. `userAgent` and `viewport`
   * still override it.
   * @default false
   */
  mobile?: boolean;
  /**
   * The desktop default is the browser's own user agent without the "HeadlessChrome" token,
   * which many sites block.
   * @default the browser's desktop user agent, or the phone's when `mobile`
   */
  userAgent?: string;
  /** @default 1280×800, or the phone's screen when `mobile` */
  viewport?: { width: number; height: number };
  /**
   * navigator.language and Intl defaults, e.g. `de-DE`.
   * @default Chromium's (en-US)
   */
  locale?: string;
  /**
   * IANA time zone, e.g. `Europe/Berlin`.
   * @default the host's
   */
  timezoneId?: string;
  /**
   * Sent with every request of the page. An `accept-language` here overrides the one `locale`
   * would send.
   * @default {}
   */
  extraHTTPHeaders?: Record<string, string>;
  /**
   * Upstream proxy (`http(s)://[user:pass@]host:port`) for every request of the page, reached
   * through `proxyServerFor`.
   * @default undefined (the pool's `proxyServer`)
   */
  proxy?: string;
  /**
   * Apply the pool's content blocker: ads, trackers and cookie banners. Routing costs a round
   * trip to Node per request, so it is only installed when asked for.
   * @default false
   */
  blockAds?: boolean;
  /**
   * Aborting it leaves the queue, or closes the page and makes `withPage` reject with the
   * signal's reason.
   * @default undefined
   */
  signal?: AbortSignal;
}

export interface BrowserPoolStats {
  /** Browsers launched so far: the first, and every relaunch after a crash, retirement or idle close. */
  launches: number;
  /** Browsers that disconnected without being closed (crashed or killed). */
  crashes: number;
  /** Browsers running now, retired ones finishing their last pages included. */
  browsersOpen: number;
  /** Pages handed to callers so far. */
  pagesServed: number;
  /** Of those, pages a previous call had used (a warm context, reset in between). */
  pagesReused: number;
  /** Pages handed to callers right now. */
  openPages: number;
  /** Reset pages waiting, each in its own context, for a call with matching options. */
  warmPages: number;
  /** Calls holding one of the `maxConcurrentPages` slots now (a page open, or being set up). */
  slotsInUse: number;
  /** Calls queued for a slot now. */
  slotsWaiting: number;
}

export interface BrowserPool {
  /**
   * Unique per pool. Each launched browser carries `TRAWL_BROWSER=<id>/<n>` in its environment,
   * so its processes can be found (see chromium-processes.ts).
   */
  readonly id: string;
  /**
   * Runs `fn` with a page alone in its context: a warm one, reset since its last call, or a fresh
   * one. `fn` may navigate, evaluate, listen, route and resize the page, and open CDP sessions it
   * detaches; it must not change the context (routes, init scripts, bindings, credentials,
   * geolocation), which the reset does not undo. Resolves as soon as `fn` settles; the reset runs
   * afterwards, holding the page's slot.
   */
  withPage<T>(options: PageOptions, fn: (page: Page) => Promise<T>): Promise<T>;
  stats(): BrowserPoolStats;
  /** Rejects queued calls, closes every browser, and kills any that will not close. */
  close(): Promise<void>;
}

const optionsSchema = z.strictObject({
  executablePath: z.string().min(1).default('/usr/bin/chromium'),
  maxConcurrentPages: z.number().int().positive().default(4),
  retireAfterPages: z.number().int().positive().default(200),
  idleCloseSecs: z.number().nonnegative().default(120),
  operationTimeoutMs: z.number().int().positive().default(15_000),
  proxyServer: z.url({ protocol: /^https?$/ }).optional(),
  proxyServerFor: z.custom<(upstream: string) => string>((value) => typeof value === 'function').optional(),
  contentBlocker: z.custom<ContentBlocker>().optional(),
  log: z.custom<Logger>().optional(),
});

/**
 * The features Playwright disables at launch (its chromiumSwitches.ts). Chromium honours only the
 * last `--disable-features`, so ours would drop these unless it repeats them;
 * test/unit/browser/chromium-args.test.ts fails when a Playwright upgrade adds one.
 */
const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AimEnabled',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsFirstBalancedModeAutoEnable',
  'HttpsUpgrades',
  'LensOverlay',
  'MediaRouter',
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
  'PaintHolding',
  'PreconnectToSearch',
  'TcpPortRandomizationWin',
  'ThirdPartyStoragePartitioning',
  'msEdgeUpdateLaunchServicesPreferredVersion',
  'msForceBrowserSignIn',
];

/**
 * Work Chromium does for each new context that a page alone in its context never uses. With a
 * context per page, each costs about as much CPU as rendering a typical page, or more:
 * - headless Chromium gives every context a window, whose omnibox loads its WebUI popups
 *   (chrome://omnibox-popup.top-chrome/) in a renderer of their own: 100–450 ms per page;
 * - after a navigation Chromium starts a spare renderer for the context's next one, which never
 *   comes: about 90 ms per page with four pages at once.
 */
const PER_CONTEXT_WASTE: readonly string[] = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess'];

/** Launch flags; the benchmark peer uses the same ones so both sides render with one browser. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Containers often mount a 64 MB /dev/shm, which Chromium outgrows on large pages.
  '--disable-dev-shm-usage',
  // WebRTC only through the proxy, so its UDP cannot bypass the guard (browser/webrtc-policy.ts).
  WEBRTC_POLICY_ARG,
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...PER_CONTEXT_WASTE].join(',')}`,
];

const DESKTOP_VIEWPORT = { width: 1280, height: 800 };
const MOBILE_DEVICE = devices['Pixel 7'];

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
  /**
   * Aborted when the browser disconnects. Playwright leaves some calls on a dead browser
   * (newPage among them) pending forever, so every operation races this.
   */
  lost: AbortController;
  closing?: Promise<void>;
}

const noop = (): void => {};

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err);
}

/** Chrome's reduced user agent, as a headful Chrome of the same major version on Linux sends it. */
function desktopUserAgent(version: string): string {
  const major = version.split('.')[0] ?? '0';
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

function contextOptionsFor(options: PageOptions, launched: Launched, proxyServer: string | undefined): BrowserContextOptions {
  const device = options.mobile ? MOBILE_DEVICE : undefined;
  return {
    // Playwright adds `<-loopback>` to the bypass list, so loopback targets are proxied too.
    proxy: proxyServer === undefined ? undefined : { server: proxyServer },
    userAgent: options.userAgent ?? device?.userAgent ?? launched.desktopUserAgent,
    viewport: options.viewport ?? device?.viewport ?? DESKTOP_VIEWPORT,
    deviceScaleFactor: device?.deviceScaleFactor ?? 1,
    isMobile: device?.isMobile ?? false,
    hasTouch: device?.hasTouch ?? false,
    ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
    locale: options.locale,
    timezoneId: options.timezoneId,
    // Set on each use instead (warm-pages.ts `useHeaders`), so the headers do not split the pool.
    // A page is loaded once: a service worker only adds work, and its requests would bypass routing.
    serviceWorkers: 'block',
    // Downloads would land on local disk with no size bound; the navigation fails instead.
    acceptDownloads: false,
  };
}

/**
 * The pool a page's context belongs to: everything fixed at context creation (user agent,
 * viewport, device emulation, locale, time zone, TLS errors) plus whether the content blocker is
 * installed, which cannot be taken off again. Undefined for a page with an upstream proxy: those
 * are rare, each upstream would need contexts of its own, and a fresh context costs only time.
 */
function contextKeyOf(options: BrowserContextOptions, blockAds: boolean): string | undefined {
  if (options.proxy) return undefined;
  const { userAgent, viewport, deviceScaleFactor, isMobile, hasTouch, ignoreHTTPSErrors, locale, timezoneId } = options;
  return JSON.stringify([userAgent, viewport, deviceScaleFactor, isMobile, hasTouch, ignoreHTTPSErrors, locale, timezoneId, blockAds]);
}

/** The URL of the document a request came from: its frame's, or the nearest parent's while a frame is still blank. */
function documentUrlOf(frame: Frame | null): string {
  for (let current = frame; current; current = current.parentFrame()) {
    const url = current.url();
    if (url !== '' && url !== 'about:blank') return url;
  }
  return '';
}

async function installContentBlocker(context: BrowserContext, blocker: ContentBlocker): Promise<void> {
  const { blocks, binding, initScript } = blocker;
  if (binding) await context.exposeBinding(binding.name, ({ frame }, message: unknown) => binding.handle(frame, message));
  if (initScript) await context.addInitScript({ content: initScript });
  if (!blocks) return;
  await context.route('**/*', (route, request) => {
    let frame: Frame | null = null;
    try {
      frame = request.frame();
    } catch {
      // Service worker requests have no frame; service workers are blocked in these contexts.
    }
    // Blocking the document itself would fail the scrape, whatever the lists think of its URL.
    const mainNavigation = request.isNavigationRequest() && frame?.parentFrame() === null;
    const block =
      !mainNavigation && blocks({ url: request.url(), resourceType: request.resourceType(), documentUrl: documentUrlOf(frame) });
    return (block ? route.abort('blockedbyclient') : route.continue()).catch(noop);
  });
}

interface BoundOptions<T> {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Names the operation in the timeout error. */
  what?: string;
  /** Disposes of a result that arrives after the caller gave up on it. */
  discard?: (late: T) => void;
}

/** Settles with `work`, or earlier with the signal's reason or a timeout. */
function bounded<T>(work: Promise<T>, { signal, timeoutMs, what = 'browser operation', discard }: BoundOptions<T>): Promise<T> {
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
        log?.warn({ marker: launched.marker, err: messageOf(err) }, 'browser-pool: browser did not close, killing it');
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
      throw new PageError('SERVICE_UNAVAILABLE', `Chromium failed to launch: ${messageOf(err)}`, { cause: err });
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
      log?.warn({ marker: launched.marker, err: messageOf(err) }, 'browser-pool: context did not close, retiring browser');
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

  async function openPage(launched: Launched, pageOptions: PageOptions, signal: AbortSignal): Promise<WarmPage> {
    const proxyServer = pageOptions.proxy === undefined ? undefined : upstreamListener(pageOptions.proxy);
    const contextOptions = contextOptionsFor(pageOptions, launched, proxyServer);
    const blockAds = Boolean(pageOptions.blockAds && opts.contentBlocker);
    const key = contextKeyOf(contextOptions, blockAds);
    const warm = key === undefined ? undefined : takeWarm(launched, key);
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
      if (key === undefined) opened.spoiled = 'its context has an upstream proxy';
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
    let reusable = false;
    if (!closed && !launched.retired && launched.browser.isConnected()) {
      try {
        reusable = await bounded(resetWarmPage(warm), {
          signal: launched.lost.signal,
          timeoutMs: opts.operationTimeoutMs,
          what: 'resetting a page',
        });
      } catch (err) {
        log?.debug({ marker: launched.marker, err: messageOf(err) }, 'browser-pool: page reset failed, closing its context');
      }
    }
    if (reusable && !closed && !launched.retired) {
      launched.warm.push(warm);
      // Pages waiting for options nobody asks for any more make room for those in use.
      while (launched.warm.length > opts.maxConcurrentPages) void closeContext(launched.warm.shift()!.context, launched);
    } else {
      if (warm.spoiled) log?.debug({ marker: launched.marker, reason: warm.spoiled }, 'browser-pool: not reusing a page');
      await closeContext(warm.context, launched);
    }
  }

  async function withPage<T>(pageOptions: PageOptions, fn: (page: Page) => Promise<T>): Promise<T> {
    if (closed) throw closedError();
    const { signal } = pageOptions;
    const release = await slots.acquire(signal);
    clearTimeout(idleTimer);
    let launched: Launched | undefined;
    let warm: WarmPage | undefined;
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
      warm = await openPage(launched, pageOptions, pageSignal);
      await bounded(useHeaders(warm, pageOptions.extraHTTPHeaders), {
        signal: pageSignal,
        timeoutMs: opts.operationTimeoutMs,
        what: 'setting the extra headers',
      });
      openPages++;
      handedOut = true;
      pagesServed++;
      const work = fn(warm.page).finally(() => {
        callbackSettled = true;
      });
      return await bounded(work, { signal: pageSignal });
    } finally {
      // An abandoned call's page is no longer the caller's: recycle closes it.
      if (handedOut) openPages--;
      const done = launched;
      const page = warm;
      const task = (async () => {
        if (page && done) await recycle(page, done, callbackSettled);
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

  async function close(): Promise<void> {
    closeAll ??= (async () => {
      closed = true;
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
