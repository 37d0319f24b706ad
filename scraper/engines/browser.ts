/**
 * The browser engine: render a page in Chromium (through the worker's browser pool) and hand
 * back the DOM as the scripts left it, or the raw bytes of a non-HTML response.
 *
 * One deadline bounds everything, the requested actions included (they run after the settle and
 * before the capture; see scraper/actions/). When it passes, or the scrape is cancelled, the pool
 * closes the page and this throws SCRAPE_TIMEOUT: a half-rendered page is never reported as a success.
 *
 * The page's context goes through the scrape's upstream proxy (if any), and `blockAds` turns on
 * the pool's content blocker (ads, trackers, cookie banners).
 */
import { lookup } from 'node:dns/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Location } from '../../contracts/scrape-options.js';
import { deadlineSignal } from '../../lib/deadline-signal.js';
import { firstLineOf, NonRetryablePageError, PageError, TrawlError } from '../../lib/errors.js';
import type { BrowserPool, CDPSession, Page, PageOptions, PageResponse } from '../../browser/browser-pool.js';
import { takeScreenshot } from '../actions/capture.js';
import { brandingOf } from './branding.js';
import { runActions } from '../actions/run-actions.js';
import { localeForCountry } from '../net/accept-language.js';
import { addressPolicyFor } from '../net/address-policy.js';
import { UNREACHABLE_HEADER } from '../net/guard-proxy.js';
import { toPageError } from '../net/network-error.js';
import { ssrfBlockedError } from '../net/peer-guard.js';
import type { BrowserFetchRequest, FetchedPage, RedirectHop } from '../types.js';
import { DESKTOP_USER_AGENT, MOBILE_USER_AGENT } from '../user-agent.js';
import { ACTION_SETTLE_MS, idleProof, type IdleProof, SETTLE_MAX_MS, SETTLE_MIN_MS, SETTLE_QUIET_MS, watchNetwork } from './page-settle.js';

/** Reading the design tokens walks a few hundred elements: a second is plenty, except for a page that blocks. */
const BRANDING_TIMEOUT_MS = 5_000;

/**
 * `load` waits for every subresource, so one slow ad or analytics host could hold a scrape until
 * its timeout. Navigation waits for the DOM; `load` gets this long on top, then the settle runs.
 */
const LOAD_GRACE_MS = 3_000;

async function loadOrGrace(page: Page, req: BrowserFetchRequest): Promise<void> {
  await page.waitForLoadState('load', { timeout: Math.max(1, Math.min(LOAD_GRACE_MS, remainingMs(req))) }).catch((err: unknown) => {
    if (!/timeout/i.test(firstLineOf(err))) throw err;
  });
}

/** The zone most of the population lives in, where ICU's first zone for the country is a fringe one. */
const MAIN_TIMEZONES: Readonly<Record<string, string>> = {
  AR: 'America/Argentina/Buenos_Aires', AU: 'Australia/Sydney', BR: 'America/Sao_Paulo', CA: 'America/Toronto',
  CL: 'America/Santiago', CY: 'Asia/Nicosia', ES: 'Europe/Madrid', FM: 'Pacific/Pohnpei', GL: 'America/Nuuk',
  KI: 'Pacific/Tarawa', MH: 'Pacific/Majuro', MN: 'Asia/Ulaanbaatar', MX: 'America/Mexico_City',
  PF: 'Pacific/Tahiti', PG: 'Pacific/Port_Moresby', PT: 'Europe/Lisbon', RU: 'Europe/Moscow',
  US: 'America/New_York', UZ: 'Asia/Tashkent',
};

type LocaleWithZones = Intl.Locale & { timeZones?: string[]; getTimeZones?: () => string[] };

/** A country's main time zone: the table above, else ICU's zone for the region, else UTC. */
export function timezoneForCountry(country: string): string {
  const code = country.toUpperCase();
  const main = MAIN_TIMEZONES[code];
  if (main) return main;
  try {
    // Node 20 has the `timeZones` getter; later V8 renamed it to `getTimeZones()`.
    const region = new Intl.Locale(`und-${code}`) as LocaleWithZones;
    return (region.getTimeZones?.() ?? region.timeZones)?.[0] ?? 'UTC';
  } catch {
    return 'UTC';
  }
}

function localeFor(location: Location): string {
  for (const tag of location.languages ?? []) {
    try {
      const canonical = Intl.getCanonicalLocales(tag)[0];
      if (canonical) return canonical;
    } catch {
      // Not a language tag; try the next one.
    }
  }
  return localeForCountry(location.country);
}

/**
 * With a location, Chromium's locale emulation owns Accept-Language and sends the locale alone
 * (`de-DE`, not the http engine's `de-DE,de;q=0.9`). A weighted list can only be set per frame
 * through raw CDP, which Playwright resets for cross-origin frames; one locale everywhere, in the
 * header, navigator.language and Intl alike, is the more consistent identity.
 */
function pageOptionsFor(req: BrowserFetchRequest, signal: AbortSignal): PageOptions {
  const headers: Record<string, string> = {};
  // The same identity as the http engine, so a site answers both engines alike.
  let userAgent = req.mobile ? MOBILE_USER_AGENT : DESKTOP_USER_AGENT;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    const key = name.toLowerCase();
    // As a header only, navigator.userAgent would still give the browser away.
    if (key === 'user-agent') userAgent = value;
    else headers[key] = value;
  }
  return {
    ignoreHTTPSErrors: req.network.skipTlsVerification,
    proxy: req.network.proxy,
    vetProxy: req.network.vetProxy,
    blockAds: req.blockAds,
    mobile: req.mobile ?? false,
    userAgent,
    // Laying the page out at the screenshot's size from the start avoids a second layout.
    viewport: req.screenshot?.viewport,
    locale: req.location && localeFor(req.location),
    timezoneId: req.location && timezoneForCountry(req.location.country),
    extraHTTPHeaders: headers,
    // A profiled context is closed after the scrape, never reset for another request.
    ...(req.profile && { dedicated: true, ...(req.profile.state && { storageState: req.profile.state }) }),
    signal,
  };
}

function remainingMs(req: BrowserFetchRequest): number {
  return Math.max(1, req.deadline - Date.now());
}


function timeoutError(req: BrowserFetchRequest, cause?: unknown): NonRetryablePageError {
  return new NonRetryablePageError('SCRAPE_TIMEOUT', `Scrape of ${req.url} did not finish before its deadline`, {
    details: { url: req.url },
    cause,
  });
}

/** Settles with `work` or rejects with the signal's reason, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

function withoutHash(url: string): string {
  const at = url.indexOf('#');
  return at === -1 ? url : url.slice(0, at);
}

/**
 * Responses that became the main frame's document, by URL. A script may navigate after `load`;
 * the response that counts is the one whose document is on screen when the page is captured.
 */
function watchDocuments(page: Page): Map<string, PageResponse> {
  const documents = new Map<string, PageResponse>();
  page.on('response', (response) => {
    const request = response.request();
    if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
    if (response.status() >= 300 && response.status() < 400) return;
    documents.set(withoutHash(response.url()), response);
  });
  return documents;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function isHtml(type: string): boolean {
  return type === '' || type === 'text/html' || type === 'application/xhtml+xml';
}

/**
 * Chromium shows PDFs in its viewer, and the navigation's body then reads as the viewer's HTML.
 * Fetching the URL again from the page goes through the same proxy, cookies and HTTP cache.
 */
async function pdfBytes(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const res = await fetch(location.href, { cache: 'force-cache', credentials: 'include' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  });
  return Buffer.from(base64, 'base64');
}

/**
 * What `page.content()` returns, read with one CDP call in the page's main world: Playwright's
 * content() first sets up its utility world and injected script in each new document, which
 * cost about 3× as long on the bench site's pages. The page could fake what it returns, but it
 * controls its own content anyway.
 */
const SERIALIZE_DOCUMENT =
  "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + (document.documentElement ? document.documentElement.outerHTML : '')";

async function serializeDocument(cdp: CDPSession): Promise<string> {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression: SERIALIZE_DOCUMENT, returnByValue: true });
  if (exceptionDetails || typeof result.value !== 'string') {
    throw new Error(`Serializing the document failed: ${exceptionDetails?.exception?.description ?? exceptionDetails?.text ?? result.type}`);
  }
  return result.value;
}

/** The DOM, once more if a script navigates away while it is serialised. */
async function documentHtml(page: Page, cdp: CDPSession, req: BrowserFetchRequest): Promise<string> {
  try {
    return await serializeDocument(cdp);
  } catch (err) {
    if (!/navigat|context was destroyed|Cannot find context/i.test(firstLineOf(err))) throw err;
    await page.waitForLoadState('load', { timeout: remainingMs(req) });
    return serializeDocument(cdp);
  }
}

/**
 * Navigations Chromium abandons although the server answered: 204/205 (nothing to show) and, in
 * new headless mode, a 401 with an auth challenge (no one to ask for credentials). The status is
 * the answer; there is no document to read.
 */
function isAnsweredWithoutDocument(err: unknown, response: PageResponse | undefined): response is PageResponse {
  if (!response) return false;
  const status = response.status();
  const message = firstLineOf(err);
  return (
    ((status === 204 || status === 205) && message.includes('ERR_ABORTED')) ||
    (status === 401 && message.includes('ERR_INVALID_AUTH_CREDENTIALS'))
  );
}

/**
 * The guard proxy answers a blocked target itself, with a marked 403, and an unreachable one with
 * a marked 502: neither is the site's content. Returns the headers otherwise.
 */
export async function refuseBlocked(response: PageResponse): Promise<Record<string, string>> {
  const headers = await response.allHeaders();
  if (response.status() === 403 && headers['x-trawl-blocked'] === 'ssrf') {
    const host = new URL(response.url()).hostname;
    throw ssrfBlockedError(host, host);
  }
  const unreachable = headers[UNREACHABLE_HEADER];
  if (response.status() === 502 && unreachable) {
    // The same error the HTTP engine gives for the same failure.
    throw toPageError(Object.assign(new Error(unreachable), { code: unreachable }), new URL(response.url()));
  }
  return headers;
}

/**
 * Holds the page's main-frame navigations to `checkUrl`, every redirect hop included, before
 * Chromium sends them: the page's CDP session pauses each document request (Playwright's routes
 * never see a redirect's next hop), so a refused URL is never contacted. Navigations a script, a
 * meta refresh or a click starts pass the same way.
 */
interface NavigationGuard {
  /** Throws the first refusal, if any. */
  throwIfRefused(): void;
  /** Ends the interception: the pool hands the page, and its session, to the next scrape. */
  release(): Promise<void>;
}

async function guardNavigations(cdp: CDPSession, req: BrowserFetchRequest): Promise<NavigationGuard> {
  const check = req.checkUrl;
  if (!check) return { throwIfRefused: () => undefined, release: async () => undefined };
  let refused: unknown;
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const mainFrame = frameTree.frame.id;
  const decide = async (requestId: string, frameId: string, url: string) => {
    try {
      if (frameId === mainFrame) await check(url);
      await cdp.send('Fetch.continueRequest', { requestId });
    } catch (err) {
      refused ??= err;
      await cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
    }
  };
  const onPaused = (event: { requestId: string; frameId: string; request: { url: string } }): void => {
    // A page closed meanwhile has no request left to continue.
    decide(event.requestId, event.frameId, event.request.url).catch(() => undefined);
  };
  cdp.on('Fetch.requestPaused', onPaused);
  try {
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] });
  } catch (err) {
    cdp.off('Fetch.requestPaused', onPaused);
    throw err;
  }
  return {
    throwIfRefused: () => {
      if (refused) throw refused;
    },
    // Requests still paused continue, as they would if the session detached; a closed page has
    // nothing to release.
    release: () => {
      cdp.off('Fetch.requestPaused', onPaused);
      return cdp.send('Fetch.disable').then(() => undefined, () => undefined);
    },
  };
}

async function render(page: Page, cdp: CDPSession, req: BrowserFetchRequest, signal: AbortSignal): Promise<FetchedPage> {
  // Set up before the navigation, while the page's thread has nothing to do: after `load`, its
  // Network.enable would wait for the page's own work, and hold up the settle.
  const watchingIdle = idleProof(page, cdp);
  try {
    const guard = await guardNavigations(cdp, req);
    try {
      return await renderGuarded(page, cdp, req, signal, { throwIfRefused: guard.throwIfRefused, idle: await watchingIdle });
    } finally {
      await guard.release();
    }
  } finally {
    // The page's session goes back to the pool with the page.
    await watchingIdle.then((idle) => idle.stop(), () => undefined);
  }
}

async function renderGuarded(
  page: Page,
  cdp: CDPSession,
  req: BrowserFetchRequest,
  signal: AbortSignal,
  { throwIfRefused, idle }: { throwIfRefused: () => void; idle: IdleProof },
): Promise<FetchedPage> {
  const network = watchNetwork(page);
  const documents = watchDocuments(page);
  let navigation: PageResponse | null;
  try {
    navigation = await page.goto(req.url, { waitUntil: 'domcontentloaded', timeout: remainingMs(req) });
  } catch (err) {
    throwIfRefused();
    const answer = [...documents.values()].at(-1);
    if (isAnsweredWithoutDocument(err, answer)) return captured(answer.url(), answer, { html: '' });
    throw err;
  }
  throwIfRefused();
  await Promise.all([navigation && refuseBlocked(navigation), loadOrGrace(page, req)]);

  await Promise.all([
    network.wait(SETTLE_QUIET_MS, SETTLE_MIN_MS, Math.min(SETTLE_MAX_MS, remainingMs(req)), signal, idle),
    // Counted from `load` like the settle, so a waitFor longer than the settle costs nothing extra.
    req.waitForMs > 0 ? sleep(req.waitForMs, undefined, { signal }) : undefined,
  ]);

  const actions = req.actions?.length
    ? await runActions(req.actions, {
        page,
        signal,
        remainingMs: () => remainingMs(req),
        // A click or key may fetch or navigate: a settle counted from the action, then the new
        // document's load. Handlers often debounce, so the action gets the longer quiet window.
        settle: async () => {
          await network.wait(ACTION_SETTLE_MS, ACTION_SETTLE_MS, Math.min(SETTLE_MAX_MS, remainingMs(req)), signal);
          await loadOrGrace(page, req);
        },
        html: () => documentHtml(page, cdp, req),
      })
    : undefined;

  // A script or an action may have navigated since the load.
  throwIfRefused();
  const response = documents.get(withoutHash(page.url())) ?? navigation;
  if (!response) throw new PageError('SCRAPE_SITE_ERROR', `No response for ${req.url}`, { details: { url: req.url } });
  const headers = await refuseBlocked(response);
  const type = mediaType(headers['content-type']);

  const content: Pick<FetchedPage, 'html' | 'body'> = !isHtml(type)
    ? { body: type === 'application/pdf' ? await pdfBytes(page) : await response.body() }
    : { html: await documentHtml(page, cdp, req) };

  const screenshot = req.screenshot && (await takeScreenshot(page, req.screenshot, remainingMs(req)));
  const read = req.branding && isHtml(type) ? await brandingOf(page, Math.min(BRANDING_TIMEOUT_MS, remainingMs(req))) : undefined;
  const branding = read && { profile: read.branding, warning: read.warning };
  return captured(page.url(), response, { ...content, screenshot, actions, ...(branding && { branding }) }, headers);
}

async function captured(
  url: string,
  response: PageResponse,
  content: Pick<FetchedPage, 'html' | 'body' | 'screenshot' | 'actions' | 'branding'>,
  knownHeaders?: Record<string, string>,
): Promise<FetchedPage> {
  const headers = knownHeaders ?? (await response.allHeaders());
  const redirectChain = await redirectsBefore(response);
  return {
    engine: 'browser',
    url,
    statusCode: response.status(),
    headers,
    contentType: mediaType(headers['content-type']),
    ...content,
    ...(redirectChain.length > 0 && { redirectChain }),
  };
}

/** The main frame's redirects that led to `response`, oldest first, as Chromium recorded them. */
async function redirectsBefore(response: PageResponse): Promise<RedirectHop[]> {
  const hops: RedirectHop[] = [];
  for (let request = response.request().redirectedFrom(); request; request = request.redirectedFrom()) {
    hops.unshift({ url: request.url(), statusCode: (await request.response())?.status() ?? 0 });
  }
  return hops;
}

/**
 * The proxy refused an HTTPS tunnel, and Chromium hides its answer behind one error code. Judge
 * the target the way the proxy did, so a blocked address is not retried as a site failure.
 */
async function tunnelFailure(req: BrowserFetchRequest, signal: AbortSignal, cause: unknown): Promise<TrawlError> {
  const host = new URL(req.url).hostname.replace(/^\[(.*)\]$/, '$1');
  const details = { url: req.url, error: 'net::ERR_TUNNEL_CONNECTION_FAILED' };
  let addresses: string[];
  try {
    addresses = (await untilAborted(lookup(host, { all: true, verbatim: true }), signal)).map((entry) => entry.address);
  } catch (err) {
    if (signal.aborted) throw err;
    return new NonRetryablePageError('SCRAPE_DNS_RESOLUTION_ERROR', `DNS resolution failed for ${host}`, { details, cause });
  }
  const allowed = addressPolicyFor(req.network.allowPrivateNetwork);
  const blocked = addresses.find((address) => !allowed(address));
  if (blocked) return ssrfBlockedError(host, blocked);
  return new PageError('SCRAPE_SITE_ERROR', `Could not connect to ${new URL(req.url).host}`, { details, cause });
}

const NET_ERROR = /net::(ERR_[A-Z0-9_]+)/;

/** Chromium's net error codes (net/base/net_error_list.h) that no retry will change. */
const PERMANENT_SITE_ERRORS: ReadonlySet<string> = new Set([
  'ERR_TOO_MANY_REDIRECTS',
  'ERR_UNSAFE_REDIRECT',
  'ERR_INVALID_REDIRECT',
  'ERR_INVALID_RESPONSE',
  'ERR_INVALID_HTTP_RESPONSE',
  'ERR_INVALID_CHUNKED_ENCODING',
  'ERR_CONTENT_DECODING_FAILED',
  'ERR_RESPONSE_HEADERS_TOO_BIG',
  'ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH',
  'ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION',
  'ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_DISPOSITION',
  'ERR_BLOCKED_BY_RESPONSE',
]);

async function toScrapeError(err: unknown, req: BrowserFetchRequest, signal: AbortSignal): Promise<TrawlError> {
  if (err instanceof TrawlError) return err;
  const message = firstLineOf(err);
  const host = new URL(req.url).host;
  const details = { url: req.url, error: message };
  if (err instanceof Error && err.name === 'TimeoutError') return timeoutError(req, err);
  if (message.includes('Download is starting')) {
    const reason = `${req.url} is a file download, which the browser engine does not fetch`;
    return new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', reason, { details, cause: err });
  }
  const code = NET_ERROR.exec(message)?.[1];
  if (code === 'ERR_NAME_NOT_RESOLVED' || code === 'ERR_NAME_RESOLUTION_FAILED') {
    return new NonRetryablePageError('SCRAPE_DNS_RESOLUTION_ERROR', `DNS resolution failed for ${host}`, { details, cause: err });
  }
  if (code && (/^ERR_(CERT|SSL)_/.test(code) || code === 'ERR_BAD_SSL_CLIENT_AUTH_CERT')) {
    return new NonRetryablePageError('SCRAPE_SSL_ERROR', `TLS error connecting to ${host}: ${code}`, { details, cause: err });
  }
  if (code === 'ERR_TUNNEL_CONNECTION_FAILED') return tunnelFailure(req, signal, err);
  if (code === 'ERR_PROXY_CONNECTION_FAILED') {
    return new PageError('SERVICE_UNAVAILABLE', 'The browser could not reach its proxy', { details, cause: err });
  }
  if (code === 'ERR_UNSAFE_PORT') {
    const reason = `Chromium refuses to connect to port ${new URL(req.url).port}`;
    return new NonRetryablePageError('INVALID_URL', reason, { details, cause: err });
  }
  if (code && PERMANENT_SITE_ERRORS.has(code)) {
    return new NonRetryablePageError('SCRAPE_SITE_ERROR', `${host} sent an unusable response: ${code}`, { details, cause: err });
  }
  if (code) return new PageError('SCRAPE_SITE_ERROR', `Loading ${host} failed: ${code}`, { details, cause: err });
  if (/crash/i.test(message)) {
    return new PageError('SCRAPE_SITE_ERROR', `The page crashed while rendering ${req.url}`, { details, cause: err });
  }
  if (/has been closed|Target closed/i.test(message)) {
    return new PageError('SERVICE_UNAVAILABLE', 'The browser went away while rendering', { details, cause: err });
  }
  return new PageError('SCRAPE_SITE_ERROR', `Rendering ${req.url} failed: ${message}`, { details, cause: err });
}

export async function fetchWithBrowser(pool: BrowserPool, req: BrowserFetchRequest): Promise<FetchedPage> {
  const budget = req.deadline - Date.now();
  if (req.signal.aborted || budget <= 0) throw timeoutError(req, req.signal.reason);
  const deadline = deadlineSignal(req.signal, budget);
  const { signal } = deadline;
  try {
    return await pool.withPage(pageOptionsFor(req, signal), async (page, cdp) => {
      const rendered = await render(page, cdp, req, signal);
      // Saved from the page's own context: what the scrape and its actions left behind.
      if (req.profile?.save) await req.profile.save(await page.context().storageState());
      return rendered;
    });
  } catch (err) {
    if (signal.aborted) throw timeoutError(req, err);
    const mapped = await toScrapeError(err, req, signal).catch((inner: unknown) => {
      if (signal.aborted) return timeoutError(req, inner);
      throw inner;
    });
    throw mapped;
  } finally {
    deadline.clear();
  }
}
