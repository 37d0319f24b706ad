/**
 * A small forward proxy on 127.0.0.1 standing in for an operator's upstream proxy: it records
 * every request it forwards (absolute-form plain HTTP) and every CONNECT tunnel, can require
 * credentials, and can refuse chosen URLs. It also records the local port of every connection
 * it makes onward, so a test server can tell, per request, whether it came through this proxy
 * (its socket's remote port is one of them), for HTTPS as well as plain HTTP.
 * Names under `.localhost` resolve to 127.0.0.1, as in browsers.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface CountingProxyOptions {
  /** Require `Proxy-Authorization: Basic` with these credentials; anything else gets 407. */
  credentials?: { username: string; password: string };
  /** A status to answer a forwarded request with instead of forwarding it. */
  refuse?: (url: URL) => number | undefined;
}

export interface CountingProxy {
  /** `http://[user:pass@]127.0.0.1:PORT`, as configured in PROXY_*_URLS. */
  url: string;
  /** Absolute URLs of forwarded plain-HTTP requests, refused ones included. */
  requests: string[];
  /** `host:port` of each CONNECT tunnel. */
  connects: string[];
  /** Requests and tunnels turned away for missing or wrong credentials. */
  unauthorized: number;
  /** Everything seen: requests, tunnels and unauthorized attempts. */
  total(): number;
  /** Whether a connection from 127.0.0.1:`port` was opened by this proxy. */
  opened(port: number | undefined): boolean;
  reset(): void;
  close(): Promise<void>;
}

function resolveHost(host: string): string {
  return /(^|\.)localhost$/i.test(host) ? '127.0.0.1' : host;
}

export async function startCountingProxy(options: CountingProxyOptions = {}): Promise<CountingProxy> {
  const sockets = new Set<Socket | Duplex>();
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
    : undefined;
  const state = { requests: [] as string[], connects: [] as string[], unauthorized: 0 };
  const localPorts = new Set<number>();
  const remember = (socket: Socket): void => {
    if (socket.localPort !== undefined) localPorts.add(socket.localPort);
    else socket.once('connect', () => socket.localPort !== undefined && localPorts.add(socket.localPort));
  };
  const authorized = (req: IncomingMessage): boolean => {
    if (expected === undefined || req.headers['proxy-authorization'] === expected) return true;
    state.unauthorized++;
    return false;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    state.requests.push(target.href);
    const refusal = options.refuse?.(target);
    if (refusal !== undefined) {
      res.writeHead(refusal, { 'content-type': 'text/html' }).end('<html><body>Refused by the test proxy</body></html>');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest(
      {
        host: resolveHost(target.hostname),
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('socket', remember);
    upstream.once('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (!authorized(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const authority = req.url ?? '';
    state.connects.push(authority);
    const at = authority.lastIndexOf(':');
    const target = connect({ host: resolveHost(authority.slice(0, at).replace(/^\[(.*)\]$/, '$1')), port: Number(authority.slice(at + 1)) });
    sockets.add(target);
    remember(target);
    target.once('close', () => sockets.delete(target));
    target.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
    target.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const userinfo = options.credentials
    ? `${encodeURIComponent(options.credentials.username)}:${encodeURIComponent(options.credentials.password)}@`
    : '';
  return {
    url: `http://${userinfo}127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get connects() {
      return state.connects;
    },
    get unauthorized() {
      return state.unauthorized;
    },
    total: () => state.requests.length + state.connects.length + state.unauthorized,
    opened: (port) => port !== undefined && localPorts.has(port),
    reset: () => {
      state.requests = [];
      state.connects = [];
      state.unauthorized = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
