/**
 * Warm pages: a browser context with one page that serves request after request, reset between
 * them. A fresh context costs Chromium a new renderer process and a new document pipeline (about
 * 190 ms of CPU per page more than a reused page on the bench site, see bench/RESULTS.md), and a
 * new page in a warm context costs nearly as much; a page that navigates again reuses its renderer.
 *
 * What one request can leave behind, and how the reset removes it:
 * - its document and the scripts, timers and workers still running in it: a navigation to
 *   about:blank ends them before anything else is cleared, so nothing writes storage afterwards;
 * - `window.name`, which survives same-site navigations: set back to '' on the blank document;
 * - its session history, which a later page could walk back to (its URLs may be secrets):
 *   Page.resetNavigationHistory leaves only the blank entry;
 * - origin storage (localStorage, sessionStorage, IndexedDB, Cache Storage, service worker
 *   registrations, file systems): Storage.clearDataForOrigin for every origin a document or
 *   frame was loaded from. Third-party frames get no storage in these contexts (third-party
 *   cookies are blocked and partitioning is off), so first-party origins are all there is;
 * - cookies (any domain) and permission grants: clearCookies and clearPermissions;
 * - the HTTP cache, which may hold a response fetched with the previous request's headers:
 *   Network.clearBrowserCache;
 * - page listeners, page routes and a changed viewport: removed and restored;
 * - extra HTTP headers: set on every use (see `useHeaders`).
 *
 * Chromium keeps HTTP auth credentials (from `user:pass@` in a URL, or XMLHttpRequest.open's
 * user and password) per context, and no protocol command clears them: Network.clearBrowserCache,
 * Network.clearBrowserCookies, Storage.clearDataForOrigin 'all' and setHTTPCredentials(null) all
 * leave them in place (measured on Chromium 156). A page whose requests carried credentials is
 * therefore spoiled: its context is closed instead of reused. So is one that crashed, was closed,
 * or whose reset failed.
 */
import type { BrowserContext, CDPSession, Page, Request, WebSocket } from 'playwright-core';

export interface WarmPage {
  /** Identifies the context's creation options; a page serves only requests with the same key. */
  readonly key: string;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  /** Requests served so far. */
  uses: number;
  /** Origins documents were loaded from since the last reset: their storage is cleared. */
  readonly origins: Set<string>;
  /** Why the page must not serve another request. */
  spoiled?: string;
  /** The extra HTTP headers the context sends now, as JSON. */
  headers: string;
  /** The pool's own page listeners, which survive the reset. */
  readonly listeners: ReadonlyMap<string, (...args: never[]) => void>;
  /** The context's viewport, restored if the caller resized the page. */
  readonly viewport: { width: number; height: number } | null;
}

/** `scheme://user[:pass]@host`: the request carries credentials Chromium will keep. */
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;

function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** Opens the page of a new warm context and starts watching what it loads. */
export async function openWarmPage(
  context: BrowserContext,
  key: string,
  viewport: { width: number; height: number } | null,
): Promise<WarmPage> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const listeners = new Map<string, (...args: never[]) => void>();
  const warm: WarmPage = { key, context, page, cdp, uses: 0, origins: new Set(), headers: '{}', listeners, viewport };
  const watch = (url: string, document: boolean): void => {
    if (USERINFO.test(url)) warm.spoiled ??= 'a request carried HTTP credentials';
    if (!document) return;
    const origin = originOf(url);
    if (origin) warm.origins.add(origin);
  };
  // Context-level, so the caller's page listeners can be removed wholesale.
  context.on('request', (request: Request) => watch(request.url(), request.resourceType() === 'document'));
  listeners.set('websocket', (socket: WebSocket) => watch(socket.url(), false));
  listeners.set('crash', () => (warm.spoiled ??= 'the page crashed'));
  listeners.set('close', () => (warm.spoiled ??= 'the page was closed'));
  attachListeners(warm);
  return warm;
}

/** Makes the context send exactly `headers` with every request from now on. */
export async function useHeaders(warm: WarmPage, headers: Record<string, string> | undefined): Promise<void> {
  const json = JSON.stringify(headers ?? {});
  if (json === warm.headers) return;
  await warm.context.setExtraHTTPHeaders(headers ?? {});
  warm.headers = json;
}

function attachListeners(warm: WarmPage): void {
  for (const [event, listener] of warm.listeners) warm.page.on(event as 'close', listener as () => void);
}

/** Removes the caller's page listeners; the pool's own are put back. */
function removeCallerListeners(warm: WarmPage): void {
  warm.page.removeAllListeners();
  attachListeners(warm);
}

/**
 * Clears what the last request left (see the module comment). Returns false when the page must
 * not be reused; the caller then closes its context. Throws if a step fails, which means the same.
 */
export async function resetWarmPage(warm: WarmPage): Promise<boolean> {
  const { page, cdp, context, viewport } = warm;
  if (warm.spoiled || page.isClosed()) return false;
  removeCallerListeners(warm);
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.goto('about:blank');
  await page.evaluate(() => {
    window.name = '';
  });
  const origins = [...warm.origins];
  warm.origins.clear();
  const size = page.viewportSize();
  await Promise.all([
    cdp.send('Page.resetNavigationHistory'),
    ...origins.map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
    cdp.send('Network.clearBrowserCache'),
    context.clearCookies(),
    context.clearPermissions(),
    viewport && (size?.width !== viewport.width || size.height !== viewport.height) ? page.setViewportSize(viewport) : undefined,
  ]);
  warm.uses++;
  return !warm.spoiled && !page.isClosed();
}
