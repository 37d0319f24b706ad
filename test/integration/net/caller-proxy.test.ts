/**
 * A caller's own proxy (Jina Reader's X-Proxy-Url) through both engines: the page and, in the
 * browser, every subresource go through it with its credentials, which Chromium never sees; its
 * own address passes the SSRF policy (a proxy on loopback is refused unless private networks are
 * allowed), and targets are still checked before anything reaches it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { resolveOutputs } from '../../../contracts/page-outputs.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import type { TrawlError } from '../../../lib/errors.js';
import { fetchWithHttp } from '../../../scraper/engines/http.js';
import { addressPolicyFor, type AddressPolicy } from '../../../scraper/net/address-policy.js';
import { startGuardProxy, type GuardProxy } from '../../../scraper/net/guard-proxy.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { scrapeUrl, type ScrapeOutcome } from '../../../scraper/scrape.js';
import { startCountingProxy, type CountingProxy } from '../../helpers/counting-proxy.js';
import { startLocalServer, type LocalServer } from './local-server.js';
import { connectVia, viaProxy } from './proxy-client.js';
import { failureOf } from '../../helpers/trawl-failure.js';

const credentials = { username: 'reader', password: 'pr0xy-s3cret' };

/** A worker's browser side as worker/main.ts wires it: the guard proxy, and pools pointed at it. */
interface Worker {
  guard: GuardProxy;
  browser: BrowserPool;
  allowPrivateNetwork: boolean;
}

async function startWorker(allowPrivateNetwork: boolean): Promise<Worker> {
  const guard = await startGuardProxy({ policy: addressPolicyFor(allowPrivateNetwork) });
  const browser = createBrowserPool({ maxConcurrentPages: 2, proxyServer: guard.url, callerProxyServer: guard.leaseFor });
  return { guard, browser, allowPrivateNetwork };
}

let site: LocalServer;
/** Paths the site served, with the Proxy-Authorization each request reached it with. */
const served: { path: string; proxyAuthorization?: string }[] = [];
let permissive: Worker;
let publicOnly: Worker;
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    served.push({ path: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    if (req.url === '/data') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer": 42}');
      return;
    }
    // An empty app root: the http engine fetches it, then the browser renders it and its fetch.
    // No favicon request: one Chromium may or may not make before the scrape returns.
    const spa = `<html><head><title>App</title><link rel="icon" href="data:,"></head><body><div id="root"></div>
      <script>fetch('/data').then((r) => r.json()).then((d) => { document.getElementById('root').textContent = 'Answer: ' + d.answer; });</script></body></html>`;
    const article = '<html><head><title>Article</title></head><body><article><h1>Through the proxy</h1><p>Read through a caller\'s own proxy.</p></article></body></html>';
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/spa' ? spa : article);
  });
  [permissive, publicOnly] = await Promise.all([startWorker(true), startWorker(false)]);
});

afterEach(async () => {
  served.length = 0;
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});

afterAll(async () => {
  for (const worker of [permissive, publicOnly]) {
    await worker?.browser.close();
    await worker?.guard.close();
  }
  await site?.close();
  await closeGuardedDispatchers();
});

async function countingProxy(withCredentials = true): Promise<CountingProxy> {
  const proxy = await startCountingProxy(withCredentials ? { credentials } : {});
  closers.push(proxy);
  return proxy;
}

function scrape(worker: Worker, url: string, callerProxy: string): Promise<ScrapeOutcome> {
  const options = scrapeOptionsSchema.parse({ formats: ['markdown'] });
  return scrapeUrl(
    {
      url,
      sourceUrl: url,
      options,
      outputs: resolveOutputs(options.formats),
      scrapeId: 'caller-proxy-test',
      deadline: Date.now() + 20_000,
      signal: new AbortController().signal,
      callerProxy,
    },
    { browser: worker.browser, allowPrivateNetwork: worker.allowPrivateNetwork },
  );
}

/** What an error would tell anyone who reads the job's row or a log: never the credentials. */
const told = (err: TrawlError): string => JSON.stringify({ message: err.message, details: err.details });

describe('a scrape through a caller’s own proxy', () => {
  it('fetches the page through it with the http engine, its credentials sent to the proxy only', async () => {
    const proxy = await countingProxy();

    const outcome = await scrape(permissive, `${site.origin}/article`, proxy.url);

    expect(outcome.engine).toBe('http');
    expect(outcome.document.markdown).toContain('Through the proxy');
    expect(outcome.document.metadata.proxyUsed).toBe('basic');
    expect(proxy.requests).toEqual([`${site.origin}/article`]);
    expect(proxy.unauthorized).toBe(0);
    // The proxy takes its Proxy-Authorization off; the site never sees the credentials.
    expect(served).toEqual([{ path: '/article', proxyAuthorization: undefined }]);
    expect(JSON.stringify(outcome.document)).not.toContain(credentials.password);
  });

  it('renders in the browser through it, subresources included, the guard adding the credentials Chromium never had', async () => {
    const proxy = await countingProxy();

    const outcome = await scrape(permissive, `${site.origin}/spa`, proxy.url);

    expect(outcome.engine).toBe('browser');
    expect(outcome.document.markdown).toContain('Answer: 42');
    // The http engine's fetch, then the browser's document and its fetch(): all through the proxy.
    expect(proxy.requests).toEqual([`${site.origin}/spa`, `${site.origin}/spa`, `${site.origin}/data`]);
    expect(served.map((s) => s.path)).toEqual(['/spa', '/spa', '/data']);
    expect(proxy.unauthorized).toBe(0);
  });

  it('refuses a proxy on a private address under the default policy, whichever engine, before connecting to it', async () => {
    const proxy = await countingProxy();
    const { port } = new URL(proxy.url);
    const atLocalhost = `http://${credentials.username}:${credentials.password}@localhost:${port}`;
    // The page is refused too under this policy; its address (127.0.0.2) tells the two refusals apart.
    const target = `http://127.0.0.2:${site.port}`;

    for (const callerProxy of [proxy.url, atLocalhost]) {
      for (const path of ['/article', '/spa']) {
        const err = await failureOf(scrape(publicOnly, `${target}${path}`, callerProxy));
        expect(err.code, `${callerProxy} ${path}`).toBe('SSRF_BLOCKED');
        expect(err.message).toMatch(/^Blocked connection to the proxy (127\.0\.0\.1|localhost \(127\.0\.0\.1\)):/);
        expect(err.details).toMatchObject({ address: '127.0.0.1', proxy: true });
        expect(told(err)).not.toContain(credentials.password);
      }
    }
    expect(proxy.total()).toBe(0);
    expect(served).toEqual([]);
  });
});

describe('the network layer’s own checks on a caller’s proxy', () => {
  /** The proxy on 127.0.0.1 passes; any other address, such as the target 127.0.0.2, does not. */
  const proxyOnly: AddressPolicy = (ip) => ip === '127.0.0.1';

  it('still refuses a private target through an allowed proxy, before anything reaches the proxy', async () => {
    const proxy = await countingProxy();
    for (const url of [`http://127.0.0.2:${site.port}/article`, `https://127.0.0.2:${site.port}/`]) {
      const err = await failureOf(
        fetchWithHttp(
          { url, network: { allowPrivateNetwork: false, skipTlsVerification: false, proxy: proxy.url, vetProxy: true }, signal: new AbortController().signal, deadline: Date.now() + 5_000 },
          { policy: proxyOnly },
        ),
      );
      expect(err.code, url).toBe('SSRF_BLOCKED');
    }
    expect(proxy.total()).toBe(0);
  });

  it('dials a proxy whose name resolves to a forbidden address nowhere, in either engine, even when nothing vetted it before', async () => {
    const proxy = await countingProxy();
    const byName = proxy.url.replace('127.0.0.1', 'localhost');
    const forbidsLoopback: AddressPolicy = (ip) => ip === '127.0.0.2';
    const err = await failureOf(
      fetchWithHttp(
        { url: 'http://127.0.0.2/', network: { allowPrivateNetwork: false, skipTlsVerification: false, proxy: byName, vetProxy: true }, signal: new AbortController().signal, deadline: Date.now() + 5_000 },
        { policy: forbidsLoopback },
      ),
    );
    expect(err.code).toBe('SSRF_BLOCKED');
    expect(told(err)).not.toContain(credentials.password);

    // The browser's way: the guard's listener for that proxy dials it through the same check.
    const guard = await startGuardProxy({ policy: forbidsLoopback });
    closers.push(guard);
    const lease = await guard.leaseFor(byName);
    const forwarded = await viaProxy(lease.url, `http://127.0.0.2:${site.port}/article`);
    expect(forwarded.headers['x-trawl-blocked']).toBe('ssrf');
    const tunnel = await connectVia(lease.url, `127.0.0.2:${site.port}`);
    tunnel.socket.destroy();
    expect(tunnel.headers['x-trawl-blocked']).toBe('ssrf');
    lease.release();
    expect(proxy.total()).toBe(0);
  });

  it("gives the browser a listener per caller's proxy that chains to it, refusing private targets and forbidden proxies itself", async () => {
    const proxy = await countingProxy();
    const guard = await startGuardProxy({ policy: proxyOnly });
    closers.push(guard);

    const lease = await guard.leaseFor(proxy.url);
    expect(lease.url).not.toBe(guard.url);
    // The same proxy shares its listener while it is held.
    const again = await guard.leaseFor(proxy.url);
    expect(again.url).toBe(lease.url);
    const blocked = await viaProxy(lease.url, `http://127.0.0.2:${site.port}/article`);
    expect(blocked.status).toBe(403);
    expect(blocked.headers['x-trawl-blocked']).toBe('ssrf');
    const tunnel = await connectVia(lease.url, `127.0.0.2:${site.port}`);
    tunnel.socket.destroy();
    expect(tunnel.status).toBe(403);
    expect(proxy.total()).toBe(0);
    lease.release();
    again.release();

    const literal = await failureOf(guard.leaseFor(`http://${credentials.username}:${credentials.password}@127.0.0.3:3128`));
    expect(literal).toMatchObject({ code: 'SSRF_BLOCKED', details: { address: '127.0.0.3', proxy: true } });
    expect(told(literal)).not.toContain(credentials.password);
  });
});
