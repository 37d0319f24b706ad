/**
 * A local forward proxy that Chromium is pointed at, so every browser request (navigations,
 * redirect hops, subresources, fetch/XHR from page scripts, WebSockets via CONNECT) passes the
 * same address check as the http engine. Page-level interception cannot see server-side
 * redirect hops; a proxy sees every connection.
 *
 * Upstream proxies: Chromium takes one proxy per browser context, so the guard listens once per
 * route, on its own loopback port: one listener connects directly, and one per configured
 * upstream proxy chains every request to it (CONNECT through the upstream for tunnels,
 * absolute-form forwarding for plain HTTP). A page's context is pointed at the listener of the
 * upstream picked for it (`urlFor`), so all of its requests leave through that one proxy. The
 * upstream's credentials stay here; Chromium never sees them. Through an upstream the address
 * check runs on the target's DNS answers before the request is sent (see checkProxiedTarget).
 *
 * A caller's own proxy (X-Proxy-Url) is not known in advance: its listener is opened when a page
 * asks for it (`leaseFor`) and closed when idle, within a bound (listener-leases.ts). Unlike an
 * operator's proxy, its address must pass the policy on every connection to it (caller-proxy.ts).
 *
 * Bodies stream through untouched.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { Pool, request, type Dispatcher } from 'undici';
import { TrawlError } from '../../lib/errors.js';
import type { AddressPolicy } from './address-policy.js';
import { callerProxyLookup } from './caller-proxy.js';
import { callerProxyDispatcher, guardedDispatcher } from './guarded-dispatcher.js';
import { createListenerLeases, type Listener, type ListenerLease, type ListenerLeasesOptions } from './listener-leases.js';
import { errorCode } from './network-error.js';
import { checkProxiedTarget, guardedLookup, literalViolation, peerViolation } from './peer-guard.js';

export interface GuardProxyOptions {
  policy: AddressPolicy;
  /** Interface to listen on; keep it loopback, the proxy has no authentication. @default '127.0.0.1' */
  host?: string;
  /**
   * Upstream proxies (`http(s)://[user:pass@]host:port`), each served by a listener of its own.
   * @default [] (direct connections only)
   */
  upstreams?: readonly string[];
  /** Bounds on the listeners for callers' own proxies. @default listener-leases.ts's */
  callerProxyListeners?: Pick<ListenerLeasesOptions, 'max' | 'idleMs'>;
}

export interface GuardProxyStats {
  /** Proxied requests and CONNECT tunnels seen, over all listeners. */
  requests: number;
  /** Those refused because the target address is not allowed. */
  blocked: number;
}

export interface GuardProxy {
  /** The direct listener, e.g. `http://127.0.0.1:PORT`, for Chromium's `--proxy-server`. */
  url: string;
  /** The listener that chains to `upstream`, one of GuardProxyOptions.upstreams. */
  urlFor(upstream: string): string;
  /**
   * A listener that chains to a caller's own proxy, held until released. Fails with SSRF_BLOCKED
   * for a proxy at an IP literal the policy forbids, SERVICE_UNAVAILABLE when the bound is reached.
   */
  leaseFor(callerProxy: string): Promise<ListenerLease>;
  close(): Promise<void>;
  stats(): GuardProxyStats;
}

const CONNECT_TIMEOUT_MS = 10_000;

/** Headers that describe one connection, never forwarded (RFC 9110 §7.6.1, plus the proxy's own). */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** undici sets Host from the URL and rejects `expect`. */
const SET_BY_CLIENT: ReadonlySet<string> = new Set(['host', 'expect']);

const BLOCKED_BODY = 'Blocked by Trawl: the target address is not allowed.\n';
const BAD_GATEWAY_BODY = 'Bad gateway: the target could not be reached.\n';

/** On the proxy's own 502: the network error code (ENOTFOUND, ECONNREFUSED, ...) of the failed fetch. */
export const UNREACHABLE_HEADER = 'x-trawl-unreachable';

/** `host:port` or `[v6]:port`, the only authority form CONNECT allows. */
const CONNECT_AUTHORITY = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/@[\]]+)):(\d{1,5})$/;

function isSsrfBlock(err: unknown): boolean {
  return err instanceof TrawlError && err.code === 'SSRF_BLOCKED';
}

function endToEndHeaders(headers: IncomingHttpHeaders, drop: ReadonlySet<string>): Record<string, string | string[]> {
  const listed = new Set(
    [headers.connection ?? '']
      .flat()
      .flatMap((value) => value.split(','))
      .map((name) => name.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(key) || drop.has(key) || listed.has(key)) continue;
    out[key] = value;
  }
  return out;
}

function rawResponse(status: string, body: string, extraHeaders = ''): string {
  return (
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `${extraHeaders}connection: close\r\n\r\n${body}`
  );
}

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...headers }).end(body);
}

/** Basic credentials from the proxy URL, as undici's ProxyAgent sends them for requests. */
function proxyAuthorization(upstream: URL): Record<string, string> {
  if (!upstream.username && !upstream.password) return {};
  const credentials = `${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** How a listener reaches targets: a tunnel to host:port, and the dispatcher for plain HTTP. */
interface Route {
  /** An open tunnel, or the status the upstream refused it with. */
  open(host: string, port: number, signal: AbortSignal): Promise<{ socket: Duplex } | { refusedWith: number }>;
  dispatcher(): Dispatcher;
  close(): Promise<void>;
}

/** A TCP connection to the target, reported only once its peer address has passed the policy. */
function directRoute(policy: AddressPolicy): Route {
  return {
    open: (host, port, signal) =>
      new Promise((resolve, reject) => {
        const refused = literalViolation(host, policy);
        if (refused) {
          reject(refused);
          return;
        }
        const socket = netConnect({ host, port, lookup: guardedLookup(policy) });
        const onAbort = (): void => {
          socket.destroy();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error(`connect to ${host}:${port} timed out`)));
        const onError = (err: Error): void => reject(err);
        socket.once('error', onError);
        socket.once('close', () => reject(new Error(`connection to ${host}:${port} closed`)));
        socket.once('connect', () => {
          socket.setTimeout(0);
          socket.off('error', onError);
          signal.removeEventListener('abort', onAbort);
          const violation = peerViolation(socket, host, policy);
          if (violation) {
            socket.destroy();
            reject(violation);
            return;
          }
          resolve({ socket });
        });
      }),
    // Looked up per request: the cache may have been closed and rebuilt since the last one.
    dispatcher: () => guardedDispatcher({ policy, skipTlsVerification: false }),
    close: async () => undefined,
  };
}

/**
 * Everything through one upstream proxy, the target checked before anything is sent. A caller's
 * proxy (`vetted`) is dialled through callerProxyLookup; one at a forbidden IP literal throws here.
 */
function upstreamRoute(policy: AddressPolicy, upstream: string, vetted = false): Route {
  const url = new URL(upstream);
  const lookup = vetted ? callerProxyLookup(upstream, policy) : undefined;
  const pool = new Pool(url.origin, { connect: { timeout: CONNECT_TIMEOUT_MS, ...(lookup && { lookup }) } });
  // Cached dispatchers are for the operator's few proxies; a caller's lives as long as its listener.
  const own = vetted ? callerProxyDispatcher({ policy, skipTlsVerification: false, proxy: upstream }) : undefined;
  return {
    open: async (host, port, signal) => {
      await checkProxiedTarget(host, policy);
      const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
      const { statusCode, socket } = await pool.connect({
        path: authority,
        headers: { host: authority, ...proxyAuthorization(url) },
        signal,
      });
      if (statusCode === 200) return { socket };
      socket.destroy();
      return { refusedWith: statusCode };
    },
    dispatcher: () => own ?? guardedDispatcher({ policy, skipTlsVerification: false, proxy: upstream }),
    close: async () => {
      await Promise.all([pool.close(), own?.close()]);
    },
  };
}

export async function startGuardProxy(options: GuardProxyOptions): Promise<GuardProxy> {
  const { policy } = options;
  const listenHost = options.host ?? '127.0.0.1';
  const counters: GuardProxyStats = { requests: 0, blocked: 0 };

  async function listen(route: Route): Promise<Listener> {
    // CONNECT sockets leave the HTTP server's bookkeeping, so close() ends them itself.
    const tunnelSockets = new Set<Duplex>();
    const track = (socket: Duplex): void => {
      tunnelSockets.add(socket);
      socket.once('close', () => tunnelSockets.delete(socket));
    };

    /** Plain-HTTP requests arrive in absolute form (`GET http://host/path`). */
    async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
      counters.requests++;
      const target = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : undefined;
      if (target?.protocol !== 'http:') {
        reply(res, 400, 'Only absolute http:// URLs are proxied; use CONNECT for https.\n');
        return;
      }
      const aborted = new AbortController();
      res.once('close', () => aborted.abort());
      // RFC 9112 §6.3: only these two headers announce a request body.
      const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
      let upstream: Dispatcher.ResponseData;
      try {
        upstream = await request(target, {
          method: req.method ?? 'GET',
          headers: endToEndHeaders(req.headers, SET_BY_CLIENT),
          body: hasBody ? req : undefined,
          dispatcher: route.dispatcher(),
          signal: aborted.signal,
        });
      } catch (err) {
        if (isSsrfBlock(err)) {
          counters.blocked++;
          reply(res, 403, BLOCKED_BODY, { 'x-trawl-blocked': 'ssrf' });
        } else {
          // Marked with the network error, so the browser engine reports it as the HTTP engine
          // would (DNS failure, refused connection) instead of rendering this page as content.
          reply(res, 502, BAD_GATEWAY_BODY, { [UNREACHABLE_HEADER]: errorCode(err) ?? 'UNKNOWN' });
        }
        return;
      }
      try {
        res.writeHead(upstream.statusCode, endToEndHeaders(upstream.headers, new Set()));
      } catch {
        // Node refuses a few header values the response parser lets through.
        void upstream.body.dump();
        reply(res, 502, BAD_GATEWAY_BODY);
        return;
      }
      pipeline(upstream.body, res, () => undefined);
    }

    function tunnel(req: IncomingMessage, client: Duplex, head: Buffer): void {
      counters.requests++;
      track(client);
      // Until the pipelines take over, a client that goes away must not leave the dial running.
      const gone = new AbortController();
      client.on('error', () => gone.abort());
      client.once('close', () => gone.abort());
      const match = CONNECT_AUTHORITY.exec(req.url ?? '');
      const port = Number(match?.[3]);
      const host = match?.[1] ?? match?.[2];
      if (!host || !(port > 0 && port < 65536)) {
        client.end(rawResponse('400 Bad Request', 'CONNECT needs host:port.\n'));
        return;
      }
      route.open(host, port, gone.signal).then(
        (opened) => {
          if ('refusedWith' in opened) {
            // Its answer passes on, except a 407: that is about our credentials, not the browser's.
            const status = opened.refusedWith === 407 ? 502 : opened.refusedWith;
            client.end(
              rawResponse(`${status} Refused by the upstream proxy`, BAD_GATEWAY_BODY, `x-trawl-upstream-status: ${opened.refusedWith}\r\n`),
            );
            return;
          }
          const { socket } = opened;
          track(socket);
          if (gone.signal.aborted) {
            socket.destroy();
            return;
          }
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) socket.write(head);
          pipeline(client, socket, () => undefined);
          pipeline(socket, client, () => undefined);
        },
        (err: unknown) => {
          if (isSsrfBlock(err)) {
            counters.blocked++;
            client.end(rawResponse('403 Forbidden', BLOCKED_BODY, 'x-trawl-blocked: ssrf\r\n'));
          } else {
            client.end(rawResponse('502 Bad Gateway', BAD_GATEWAY_BODY));
          }
        },
      );
    }

    const server = createServer((req, res) => void forward(req, res));
    server.on('connect', tunnel);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, listenHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const urlHost = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
    return {
      url: `http://${urlHost}:${port}`,
      close: async () => {
        for (const socket of tunnelSockets) socket.destroy();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await route.close();
      },
    };
  }

  const upstreams = [...new Set(options.upstreams ?? [])];
  const listeners: Listener[] = [];
  try {
    listeners.push(await listen(directRoute(policy)));
    for (const upstream of upstreams) listeners.push(await listen(upstreamRoute(policy, upstream)));
  } catch (err) {
    await Promise.all(listeners.map((listener) => listener.close()));
    throw err;
  }
  const chained = new Map(upstreams.map((upstream, i) => [upstream, listeners[i + 1]!.url]));
  const callerListeners = createListenerLeases({
    ...options.callerProxyListeners,
    open: async (callerProxy) => listen(upstreamRoute(policy, callerProxy, true)),
  });

  return {
    url: listeners[0]!.url,
    urlFor: (upstream) => {
      const url = chained.get(upstream);
      if (!url) throw new Error('The guard proxy has no listener for this upstream proxy');
      return url;
    },
    leaseFor: (callerProxy) => callerListeners.acquire(callerProxy),
    stats: () => ({ ...counters }),
    close: async () => {
      await Promise.all([...listeners.map((listener) => listener.close()), callerListeners.close()]);
    },
  };
}
