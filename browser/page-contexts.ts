/**
 * What a page's context is created with: the emulated identity (user agent, viewport, device,
 * locale, time zone), the key that decides which warm pages may serve a call, and the content
 * blocker's routes, init script and binding.
 */
import { devices, type BrowserContext, type BrowserContextOptions, type Frame } from 'playwright-core';
import { noop } from './bounded.js';
import type { ContentBlocker, PageOptions } from './pool-types.js';

const DESKTOP_VIEWPORT = { width: 1280, height: 800 };
const MOBILE_DEVICE = devices['Pixel 7'];

/** Chrome's reduced user agent, as a headful Chrome of the same major version on Linux sends it. */
export function desktopUserAgent(version: string): string {
  const major = version.split('.')[0] ?? '0';
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

export function contextOptionsFor(options: PageOptions, defaultUserAgent: string, proxyServer: string | undefined): BrowserContextOptions {
  const device = options.mobile ? MOBILE_DEVICE : undefined;
  return {
    // Playwright adds `<-loopback>` to the bypass list, so loopback targets are proxied too.
    proxy: proxyServer === undefined ? undefined : { server: proxyServer },
    userAgent: options.userAgent ?? device?.userAgent ?? defaultUserAgent,
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
    ...(options.storageState && { storageState: options.storageState }),
  };
}

/**
 * The pool a page's context belongs to: everything fixed at context creation (user agent,
 * viewport, device emulation, locale, time zone, TLS errors) plus whether the content blocker is
 * installed, which cannot be taken off again. Undefined for a context no other call may reuse: one
 * with an upstream proxy (rare, and each upstream would need contexts of its own), one started
 * from a profile, and a dedicated one (PageOptions.dedicated).
 */
export function contextKeyOf(options: BrowserContextOptions, blockAds: boolean, dedicated = false): string | undefined {
  if (options.proxy || options.storageState || dedicated) return undefined;
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

export async function installContentBlocker(context: BrowserContext, blocker: ContentBlocker): Promise<void> {
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
