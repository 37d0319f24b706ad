/**
 * The browser pool's public shape: its options, the options of one page, its statistics, and the
 * content blocker it applies to pages opened with `blockAds`. The pool itself is browser-pool.ts.
 */
import type { BrowserContextOptions, CDPSession, Frame, Page } from 'playwright-core';
import type { Logger } from '../lib/log.js';

/** A context's cookies and localStorage, as Playwright saves and loads them (a browser profile). */
export type StorageState = Exclude<BrowserContextOptions['storageState'], string | undefined>;

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
   * The local proxy that chains to a caller's own proxy (PageOptions.proxy with `vetProxy`), e.g.
   * the guard proxy's `leaseFor`: opened on demand, held until the page's context is closed.
   * @default undefined (pages asking for a caller's proxy fail)
   */
  callerProxyServer?: (callerProxy: string) => Promise<{ url: string; release(): void }>;
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
   * `proxy` is a caller's own (X-Proxy-Url), reached through `callerProxyServer` instead.
   * @default false
   */
  vetProxy?: boolean;
  /**
   * Apply the pool's content blocker: ads, trackers and cookie banners. Routing costs a round
   * trip to Node per request, so it is only installed when asked for.
   * @default false
   */
  blockAds?: boolean;
  /**
   * Cookies and localStorage the context starts with (a browser profile). Such a context is never
   * reused: it is closed after the call, so one request's profile cannot reach another's page.
   * @default undefined (an empty context)
   */
  storageState?: StorageState;
  /**
   * Close the context after the call instead of resetting it for another: for callers that change
   * it in ways the reset does not undo (a live session, driven by its user's code).
   * @default false
   */
  dedicated?: boolean;
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
   *
   * `cdp` is the page's own CDP session, attached once for the page's life (attaching one costs a
   * round trip through the browser on every call, 10–30 ms). `fn` may send on it and listen to it,
   * and must remove its listeners and undo whatever it turns on in it (Fetch interception, say)
   * before it settles: the reset does not know about either.
   */
  withPage<T>(options: PageOptions, fn: (page: Page, cdp: CDPSession) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, and starts the resets of the pages it used only once it has settled, or once it
   * asks for another page; their slots stay taken until then. A reset costs Chromium about as
   * much CPU as a small page, so a caller whose latency includes work after the page (converting
   * and storing a scrape's result) keeps that work from competing with it.
   */
  deferResets<T>(fn: () => Promise<T>): Promise<T>;
  stats(): BrowserPoolStats;
  /** Rejects queued calls, closes every browser, and kills any that will not close. */
  close(): Promise<void>;
}
