/**
 * Upstream proxies on the network layer: the http engine's dispatcher and the guard proxy's
 * chained listeners send everything through the configured proxy, and the address policy still
 * holds, checked before anything reaches the proxy.
 */
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fetchWithHttp } from '../../../scraper/engines/http.js';
import { addressPolicyFor, type AddressPolicy } from '../../../scraper/net/address-policy.js';
import { startGuardProxy } from '../../../scraper/net/guard-proxy.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import type { FetchRequest } from '../../../scraper/types.js';
import { startCountingProxy, type CountingProxy } from '../../helpers/counting-proxy.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { startLocalServer } from './local-server.js';
import { connectVia, viaProxy } from './proxy-client.js';
import { failureOf } from '../../helpers/trawl-failure.js';

const closers: Array<{ close(): Promise<void> }> = [];
const track = <T extends { close(): Promise<void> }>(thing: T): T => {
  closers.push(thing);
  return thing;
};

afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});
afterAll(async () => {
  await closeGuardedDispatchers();
});

const credentials = { username: 'scraper', password: 's3cret:@/' };

function fetchRequest(url: string, proxy: CountingProxy, overrides: Partial<FetchRequest['network']> = {}): FetchRequest {
  return {
    url,
    network: { allowPrivateNetwork: true, skipTlsVerification: false, proxy: proxy.url, ...overrides },
    signal: new AbortController().signal,
    deadline: Date.now() + 5_000,
  };
}

describe('the http engine through an upstream proxy', () => {
  it('sends plain HTTP in absolute form with the credentials from the proxy URL, redirect hops included', async () => {
    const site = track(
      await startLocalServer((req, res) => {
        if (req.url === '/start') res.writeHead(302, { location: '/end' }).end();
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(`end, proxy-authorization=${req.headers['proxy-authorization'] ?? 'none'}`);
      }),
    );
    const proxy = track(await startCountingProxy({ credentials }));

    const page = await fetchWithHttp(fetchRequest(`${site.origin}/start`, proxy));

    expect(page.statusCode).toBe(200);
    // The proxy takes its credentials off; the site never sees them.
    expect(page.body?.toString()).toBe('end, proxy-authorization=none');
    expect(proxy.requests).toEqual([`${site.origin}/start`, `${site.origin}/end`]);
    expect(proxy.unauthorized).toBe(0);
  });

  it('tunnels HTTPS with CONNECT, the target certificate still checked unless skipTlsVerification', async () => {
    const site = track(await startLocalServer((_req, res) => res.end('over tls'), selfSignedCert()));
    const proxy = track(await startCountingProxy({ credentials }));

    const refused = await failureOf(fetchWithHttp(fetchRequest(`${site.origin}/`, proxy)));
    expect(refused.code).toBe('SCRAPE_SSL_ERROR');

    const page = await fetchWithHttp(fetchRequest(`${site.origin}/`, proxy, { skipTlsVerification: true }));
    expect(page.body?.toString()).toBe('over tls');
    expect(proxy.connects).toContain(`127.0.0.1:${site.port}`);
    expect(proxy.requests).toEqual([]);
  });

  it('refuses a forbidden target before anything reaches the proxy', async () => {
    const site = track(await startLocalServer((_req, res) => res.end('internal')));
    const proxy = track(await startCountingProxy());
    const publicOnly = { allowPrivateNetwork: false };

    for (const url of [`${site.origin}/`, `http://localhost:${site.port}/`, `https://127.0.0.1:${site.port}/`, 'http://[::1]/']) {
      const err = await failureOf(fetchWithHttp(fetchRequest(url, proxy, publicOnly)));
      expect(err.code).toBe('SSRF_BLOCKED');
    }
    expect(proxy.total()).toBe(0);
    expect(site.hits()).toBe(0);
  });
});

describe('the guard proxy chained to an upstream proxy', () => {
  const allowAll: AddressPolicy = addressPolicyFor(true);

  it('has a listener per upstream that forwards and tunnels through it, credentials added', async () => {
    const proxy = track(await startCountingProxy({ credentials }));
    const guard = track(await startGuardProxy({ policy: allowAll, upstreams: [proxy.url] }));
    const site = track(await startLocalServer((req, res) => res.end(`hello ${req.url}`)));
    const tlsSite = track(await startLocalServer((_req, res) => res.end('secure hello'), selfSignedCert()));

    const chained = guard.urlFor(proxy.url);
    expect(chained).not.toBe(guard.url);
    expect((await viaProxy(chained, `${site.origin}/page`)).body).toBe('hello /page');
    expect(proxy.requests).toEqual([`${site.origin}/page`]);

    const { status, socket } = await connectVia(chained, `127.0.0.1:${tlsSite.port}`);
    expect(status).toBe(200);
    const tls = tlsConnect({ socket, rejectUnauthorized: false, servername: 'localhost' });
    tls.end('GET / HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n');
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      tls.on('data', (chunk: Buffer) => (text += chunk.toString()));
      tls.on('end', () => resolve(text));
      tls.on('error', () => resolve(text));
    });
    expect(answer).toContain('secure hello');
    expect(proxy.connects).toEqual([`127.0.0.1:${tlsSite.port}`]);
    expect(proxy.unauthorized).toBe(0);

    // The direct listener still connects directly.
    expect((await viaProxy(guard.url, `${site.origin}/direct`)).body).toBe('hello /direct');
    expect(proxy.requests).toHaveLength(1);
  });

  it('refuses forbidden targets itself, marked, without asking the upstream', async () => {
    const proxy = track(await startCountingProxy());
    const guard = track(await startGuardProxy({ policy: addressPolicyFor(false), upstreams: [proxy.url] }));
    const chained = guard.urlFor(proxy.url);

    const forwarded = await viaProxy(chained, 'http://localhost:9/');
    expect(forwarded.status).toBe(403);
    expect(forwarded.headers['x-trawl-blocked']).toBe('ssrf');
    expect((await connectVia(chained, '10.0.0.1:443')).status).toBe(403);
    expect(proxy.total()).toBe(0);
    expect(guard.stats()).toEqual({ requests: 2, blocked: 2 });
  });

  it("passes the upstream's refusal of a tunnel on to the browser, its own credential trouble as 502", async () => {
    const refusing = track(await startCountingProxy({ credentials }));
    const site = track(await startLocalServer((_req, res) => res.end('never')));
    const wrong = new URL(refusing.url);
    wrong.password = 'wrong';
    const upstream = wrong.href.slice(0, -1);
    const guard = track(await startGuardProxy({ policy: allowAll, upstreams: [upstream] }));

    const refused = await connectVia(guard.urlFor(upstream), `127.0.0.1:${site.port}`);
    expect(refused.status).toBe(502);
    expect(refused.headers['x-trawl-upstream-status']).toBe('407');
    expect(refusing.unauthorized).toBe(1);
    expect(site.hits()).toBe(0);
  });

  it('knows only the upstreams it was started with', async () => {
    const guard = track(await startGuardProxy({ policy: allowAll }));
    expect(() => guard.urlFor('http://elsewhere.example:1')).toThrow(/no listener/);
  });
});
