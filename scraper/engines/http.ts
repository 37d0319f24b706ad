/**
 * The plain-HTTP engine: one GET with browser-like headers, redirects followed by hand so every
 * hop goes through the address guard, the body read under a size cap and the scrape deadline.
 */
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { NonRetryablePageError } from '../../lib/errors.js';
import { acceptLanguage } from '../net/accept-language.js';
import { addressPolicyFor, type AddressPolicy } from '../net/address-policy.js';
import { ACCEPT_ENCODING, contentTooLargeError, decodeContent } from '../net/content-decoding.js';
import { callerProxyDispatcher, guardedDispatcher } from '../net/guarded-dispatcher.js';
import { toPageError } from '../net/network-error.js';
import type { FetchedPage, FetchRequest, RedirectHop } from '../types.js';
import { DESKTOP_USER_AGENT, MOBILE_USER_AGENT } from '../user-agent.js';
import { CONNECTION_HEADERS } from '../net/connection-headers.js';

export interface HttpFetchOptions {
  /** Which addresses may be connected to. @default addressPolicyFor(req.network.allowPrivateNetwork) */
  policy?: AddressPolicy;
  /** Largest body accepted, after decompression. @default 50 MiB */
  maxBytes?: number;
  /** Redirects followed before giving up. @default 10 */
  maxRedirects?: number;
}

const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 10;
const REDIRECT_BODY_LIMIT = 64 * 1024;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** What Chrome sends for a top-level navigation. */
const ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';


/** Sent to the host the user named only, as curl does, so a redirect cannot harvest them. */
const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'cookie'];

/**
 * A caller aborting `req.signal` at the deadline may fire a few ms before the wall clock reads
 * the deadline (timers and Date.now drift apart slightly).
 */
const DEADLINE_SLACK_MS = 50;

function requestHeaders(req: FetchRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': req.mobile ? MOBILE_USER_AGENT : DESKTOP_USER_AGENT,
    accept: ACCEPT,
    'accept-language': acceptLanguage(req.location),
    'accept-encoding': ACCEPT_ENCODING,
    'upgrade-insecure-requests': '1',
  };
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    const key = name.toLowerCase();
    if (!CONNECTION_HEADERS.has(key)) headers[key] = value;
  }
  return headers;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const copy = { ...headers };
  for (const name of CREDENTIAL_HEADERS) delete copy[name];
  return copy;
}

function isHttpUrl(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

function parseTarget(raw: string): URL {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !isHttpUrl(url)) throw new NonRetryablePageError('INVALID_URL', `Not an http(s) URL: ${raw}`);
  return url;
}

function redirectTarget(from: URL, location: string): URL {
  const next = URL.canParse(location, from) ? new URL(location, from) : undefined;
  if (!next || !isHttpUrl(next)) {
    throw new NonRetryablePageError('SCRAPE_SITE_ERROR', `${from.href} redirects to an unsupported location: ${location}`, {
      details: { url: from.href, location },
    });
  }
  return next;
}

function flattenHeaders(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Drop a body we will not read; undici reports its own abort as an error event nobody awaits. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function readBody(response: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) {
    discard(response.body);
    throw contentTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) throw contentTooLargeError(maxBytes);
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

function timeoutError(budgetMs: number): NonRetryablePageError {
  return new NonRetryablePageError('SCRAPE_TIMEOUT', `Scrape timed out after ${budgetMs} ms`, {
    details: { timeoutMs: budgetMs },
  });
}

export async function fetchWithHttp(req: FetchRequest, options: HttpFetchOptions = {}): Promise<FetchedPage> {
  const startedAt = Date.now();
  const budgetMs = Math.max(0, req.deadline - startedAt);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const settings = {
    policy: options.policy ?? addressPolicyFor(req.network.allowPrivateNetwork),
    skipTlsVerification: req.network.skipTlsVerification,
    proxy: req.network.proxy,
  };
  let url = parseTarget(req.url);
  if (budgetMs === 0) throw timeoutError(budgetMs);
  // A caller's proxy gets a dispatcher of this fetch's own, destroyed with it (guarded-dispatcher.ts).
  const { proxy, vetProxy } = req.network;
  const ownDispatcher = proxy !== undefined && vetProxy ? callerProxyDispatcher({ ...settings, proxy }) : undefined;
  const dispatcher = ownDispatcher ?? guardedDispatcher(settings);

  // Our own timer as well as the caller's signal: the deadline must hold even for a caller that
  // only passes a signal for cancellation.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), budgetMs);
  const signal = AbortSignal.any([req.signal, deadline.signal]);
  let headers = requestHeaders(req);
  const redirectChain: RedirectHop[] = [];
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await request(url, { method: 'GET', headers, dispatcher, signal });
      const location = [response.headers.location].flat()[0];
      if (!REDIRECT_STATUSES.has(response.statusCode) || !location) {
        const raw = await readBody(response, maxBytes);
        const responseHeaders = flattenHeaders(response.headers);
        return {
          engine: 'http',
          url: url.href,
          statusCode: response.statusCode,
          headers: responseHeaders,
          contentType: mediaType(responseHeaders['content-type']),
          body: await decodeContent(raw, responseHeaders['content-encoding'], maxBytes),
          ...(redirectChain.length > 0 && { redirectChain }),
        };
      }
      // Reading a small redirect body to the end keeps the connection reusable for the next hop;
      // a larger one is dropped with its connection.
      await response.body.dump({ limit: REDIRECT_BODY_LIMIT, signal });
      if (redirects >= maxRedirects) {
        const message = `Too many redirects (more than ${maxRedirects}) from ${req.url}`;
        throw new NonRetryablePageError('SCRAPE_SITE_ERROR', message, { details: { url: url.href } });
      }
      redirectChain.push({ url: url.href, statusCode: response.statusCode });
      const next = redirectTarget(url, location);
      await req.checkUrl?.(next.href);
      if (next.hostname !== url.hostname) headers = withoutCredentials(headers);
      url = next;
    }
  } catch (err) {
    if (deadline.signal.aborted || (req.signal.aborted && Date.now() >= req.deadline - DEADLINE_SLACK_MS)) {
      throw timeoutError(budgetMs);
    }
    // Cancellation: hand back the caller's own reason (e.g. Temporal's CancelledFailure).
    if (req.signal.aborted) throw req.signal.reason;
    throw toPageError(err, url);
  } finally {
    clearTimeout(timer);
    // The body was read to its end or given up on: nothing of this fetch is left in flight.
    void ownDispatcher?.destroy();
  }
}
