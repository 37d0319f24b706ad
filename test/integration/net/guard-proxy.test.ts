import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { addressPolicyFor, type AddressPolicy } from '../../../scraper/net/address-policy.js';
import { startGuardProxy, type GuardProxy } from '../../../scraper/net/guard-proxy.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { closedPort, startLocalServer, type LocalServer } from './local-server.js';

const onlyLoopbackOne: AddressPolicy = (ip) => ip === '127.0.0.1';

const closers: Array<{ close(): Promise<void> }> = [];

async function proxyWith(policy: AddressPolicy): Promise<GuardProxy> {
  const proxy = await startGuardProxy({ policy });
  closers.push(proxy);
  return proxy;
}

async function serve(...args: Parameters<typeof startLocalServer>): Promise<LocalServer> {
  const server = await startLocalServer(...args);
  closers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});

afterAll(async () => {
  await closeGuardedDispatchers();
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

async function readReply(res: IncomingMessage): Promise<Reply> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() };
}

/** A plain-HTTP request in absolute form, the way a browser sends it to a proxy. */
async function viaProxy(proxy: GuardProxy, target: string, init: { method?: string; body?: string } = {}): Promise<Reply> {
  const { hostname, port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      hostname,
      port,
      method: init.method ?? 'GET',
      path: target,
      headers: { host: new URL(target).host, 'proxy-connection': 'keep-alive' },
    });
    req.once('response', (res) => readReply(res).then(resolve, reject));
    req.once('error', reject);
    req.end(init.body);
  });
}

/** Open a CONNECT tunnel; resolves with the proxy's answer and the raw socket. */
async function connectVia(proxy: GuardProxy, authority: string): Promise<{ res: IncomingMessage; socket: Socket; head: Buffer }> {
  const { hostname, port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, method: 'CONNECT', path: authority });
    req.once('connect', (res, socket, head) => resolve({ res, socket, head }));
    req.once('error', reject);
    req.end();
  });
}

describe('startGuardProxy', () => {
  it('listens on loopback with an ephemeral port', async () => {
    const proxy = await proxyWith(onlyLoopbackOne);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy.stats()).toEqual({ requests: 0, blocked: 0 });
  });

  it('forwards allowed plain-HTTP requests, streaming bodies both ways', async () => {
    const server = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(201, { 'Content-Type': 'text/plain', 'Set-Cookie': ['a=1', 'b=2'] });
        res.end(`${req.method} ${req.url} ${Buffer.concat(chunks).toString()} proxy-conn=${req.headers['proxy-connection'] ?? 'none'}`);
      });
    });
    const proxy = await proxyWith(onlyLoopbackOne);

    const get = await viaProxy(proxy, `${server.origin}/page?q=1`);
    expect(get.status).toBe(201);
    expect(get.body).toBe('GET /page?q=1  proxy-conn=none');
    expect(get.headers['set-cookie']).toEqual(['a=1', 'b=2']);

    const post = await viaProxy(proxy, `${server.origin}/form`, { method: 'POST', body: 'x=y' });
    expect(post.body).toBe('POST /form x=y proxy-conn=none');
    const empty = await viaProxy(proxy, `${server.origin}/empty`, { method: 'POST', body: '' });
    expect(empty.body).toBe('POST /empty  proxy-conn=none');
    expect(proxy.stats()).toEqual({ requests: 3, blocked: 0 });
  });

  it('answers a blocked plain-HTTP target with 403 and x-trawl-blocked', async () => {
    const server = await serve((_req, res) => res.end('secret'));
    const proxy = await proxyWith(addressPolicyFor(false));

    for (const target of [`${server.origin}/`, `http://localhost:${server.port}/`]) {
      const reply = await viaProxy(proxy, target);
      expect(reply.status).toBe(403);
      expect(reply.headers['x-trawl-blocked']).toBe('ssrf');
      expect(reply.body).not.toContain('secret');
    }
    expect(server.hits()).toBe(0);
    expect(proxy.stats()).toEqual({ requests: 2, blocked: 2 });
  });

  it('answers 502 when an allowed target cannot be reached', async () => {
    const port = await closedPort();
    const proxy = await proxyWith(onlyLoopbackOne);

    const reply = await viaProxy(proxy, `http://127.0.0.1:${port}/`);
    expect(reply.status).toBe(502);
    expect(reply.headers['x-trawl-blocked']).toBeUndefined();
    expect(proxy.stats()).toEqual({ requests: 1, blocked: 0 });
  });

  it('refuses requests that are not in absolute http form', async () => {
    const proxy = await proxyWith(onlyLoopbackOne);
    const { hostname, port } = new URL(proxy.url);

    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = httpRequest({ hostname, port, path: '/relative' });
      req.once('response', (res) => readReply(res).then(resolve, reject));
      req.once('error', reject);
      req.end();
    });
    expect(reply.status).toBe(400);
  });

  it('tunnels HTTPS to an allowed target through CONNECT', async () => {
    const tls = selfSignedCert();
    const server = await serve((req, res) => res.end(`tls ok ${req.url}`), tls);
    const proxy = await proxyWith(onlyLoopbackOne);

    const { res, socket } = await connectVia(proxy, `127.0.0.1:${server.port}`);
    expect(res.statusCode).toBe(200);

    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = httpsRequest({
        host: '127.0.0.1',
        port: server.port,
        path: '/secure',
        createConnection: () => tlsConnect({ socket, servername: 'localhost', ca: tls.cert }),
      });
      req.once('response', (r) => readReply(r).then(resolve, reject));
      req.once('error', reject);
      req.end();
    });
    expect(reply).toMatchObject({ status: 200, body: 'tls ok /secure' });
    expect(proxy.stats()).toEqual({ requests: 1, blocked: 0 });
  });

  it('refuses a CONNECT to a blocked target with 403 and x-trawl-blocked', async () => {
    const server = await serve((_req, res) => res.end('secret'), selfSignedCert());
    const proxy = await proxyWith(addressPolicyFor(false));

    for (const authority of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) {
      const { res, socket } = await connectVia(proxy, authority);
      expect(res.statusCode).toBe(403);
      expect(res.headers['x-trawl-blocked']).toBe('ssrf');
      socket.destroy();
    }
    expect(server.hits()).toBe(0);
    expect(proxy.stats()).toEqual({ requests: 3, blocked: 3 });
  });

  it('checks the connected address of a tunnel, not only the name', async () => {
    const server = await serve((_req, res) => res.end('secret'));
    const seen: string[] = [];
    // Allows the first look (the lookup), refuses the connected socket, as a rebinding DNS would force.
    const rebinding: AddressPolicy = (ip) => {
      seen.push(ip);
      return seen.length === 1;
    };
    const proxy = await proxyWith(rebinding);

    const { res, socket } = await connectVia(proxy, `localhost:${server.port}`);
    socket.destroy();

    expect(res.statusCode).toBe(403);
    expect(seen).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(proxy.stats().blocked).toBe(1);
  });

  it('survives clients that vanish mid-request and keeps serving', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/slow') {
        res.writeHead(200);
        res.write('partial');
        return;
      }
      res.end('fine');
    });
    const proxy = await proxyWith(onlyLoopbackOne);
    const { hostname, port } = new URL(proxy.url);

    await new Promise<void>((resolve) => {
      const req = httpRequest({ hostname, port, path: `${server.origin}/slow` });
      req.once('response', (res) => res.once('data', () => { req.destroy(); resolve(); }));
      req.once('error', () => undefined);
      req.end();
    });
    const { socket } = await connectVia(proxy, `127.0.0.1:${server.port}`);
    socket.destroy();

    const reply = await viaProxy(proxy, `${server.origin}/again`);
    expect(reply.body).toBe('fine');
  });

  it('closes with tunnels still open', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const proxy = await startGuardProxy({ policy: onlyLoopbackOne });
    const { res, socket } = await connectVia(proxy, `127.0.0.1:${server.port}`);
    expect(res.statusCode).toBe(200);
    const closed = new Promise((resolve) => socket.once('close', resolve));

    await proxy.close();
    await closed;
  });
});
