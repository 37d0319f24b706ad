import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NonRetryablePageError, PageError } from '../../../lib/errors.js';
import { fetchWithHttp } from '../../../scraper/engines/http.js';
import type { AddressPolicy } from '../../../scraper/net/address-policy.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import type { FetchRequest } from '../../../scraper/types.js';
import { DESKTOP_USER_AGENT, MOBILE_USER_AGENT } from '../../../scraper/user-agent.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { closedPort, startLocalServer, type LocalServer } from './local-server.js';
import { failureOf } from '../../helpers/trawl-failure.js';

const servers: LocalServer[] = [];

async function serve(...args: Parameters<typeof startLocalServer>): Promise<LocalServer> {
  const server = await startLocalServer(...args);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await closeGuardedDispatchers();
});

function fetchRequest(url: string, overrides: Partial<FetchRequest> = {}): FetchRequest {
  return {
    url,
    network: { allowPrivateNetwork: true, skipTlsVerification: false },
    signal: new AbortController().signal,
    deadline: Date.now() + 5_000,
    ...overrides,
  };
}

describe('fetchWithHttp', () => {
  it('fetches a page with browser-like headers', async () => {
    let seen: Record<string, string | string[] | undefined> = {};
    const server = await serve((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'Content-Type': 'Text/HTML; charset=UTF-8', 'X-Custom': 'yes' }).end('<h1>hi</h1>');
    });

    const page = await fetchWithHttp(fetchRequest(`${server.origin}/page`, { location: { country: 'DE' } }));

    expect(page).toMatchObject({ engine: 'http', url: `${server.origin}/page`, statusCode: 200, contentType: 'text/html' });
    expect(page.headers['x-custom']).toBe('yes');
    expect(page.headers['content-type']).toBe('Text/HTML; charset=UTF-8');
    expect(page.body?.toString()).toBe('<h1>hi</h1>');
    expect(seen['user-agent']).toBe(DESKTOP_USER_AGENT);
    expect(seen['accept-language']).toBe('de-DE,de;q=0.9');
    expect(seen.accept).toContain('text/html');
    expect(seen['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('uses the mobile user agent and lets user headers override the defaults', async () => {
    let seen: Record<string, string | string[] | undefined> = {};
    const server = await serve((req, res) => {
      seen = req.headers;
      res.end('ok');
    });

    await fetchWithHttp(fetchRequest(server.origin, { mobile: true, location: { country: 'JP' } }));
    expect(seen['user-agent']).toBe(MOBILE_USER_AGENT);
    expect(seen['accept-language']).toBe('ja-JP,ja;q=0.9');

    await fetchWithHttp(
      fetchRequest(server.origin, { headers: { 'User-Agent': 'custom-agent', 'Accept-Language': 'fr', Connection: 'close' } }),
    );
    expect(seen['user-agent']).toBe('custom-agent');
    expect(seen['accept-language']).toBe('fr');
  });

  it('follows a 301 → 302 → 200 chain and reports the final URL', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/a') res.writeHead(301, { Location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(302, { Location: `${server.origin}/c?x=1` }).end('moved');
      else res.end(`final ${req.url}`);
    });

    const page = await fetchWithHttp(fetchRequest(`${server.origin}/a`));

    expect(page.statusCode).toBe(200);
    expect(page.url).toBe(`${server.origin}/c?x=1`);
    expect(page.body?.toString()).toBe('final /c?x=1');
  });

  it('resolves relative Location headers against the current URL', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/dir/start') res.writeHead(307, { Location: 'next' }).end();
      else res.end(req.url);
    });

    const page = await fetchWithHttp(fetchRequest(`${server.origin}/dir/start`));
    expect(page.url).toBe(`${server.origin}/dir/next`);
  });

  it('gives up after too many redirects', async () => {
    const server = await serve((req, res) => {
      const n = Number(req.url?.slice(1)) || 0;
      res.writeHead(302, { Location: `/${n + 1}` }).end();
    });

    const err = await failureOf(fetchWithHttp(fetchRequest(`${server.origin}/0`), { maxRedirects: 3 }));
    expect(err).toBeInstanceOf(NonRetryablePageError);
    expect(err.message).toMatch(/Too many redirects/);
    expect(server.hits()).toBe(4);
  });

  it('drops credentials when a redirect leaves the host', async () => {
    const seen: Array<{ host?: string; auth?: string; cookie?: string }> = [];
    const server = await serve((req, res) => {
      seen.push({ host: req.headers.host, auth: req.headers.authorization, cookie: req.headers.cookie });
      if (req.url === '/start') res.writeHead(302, { Location: `http://localhost:${server.port}/next` }).end();
      else res.end('ok');
    });

    await fetchWithHttp(fetchRequest(`${server.origin}/start`, { headers: { Authorization: 'Bearer s3cret', Cookie: 'a=b' } }));

    expect(seen[0]).toMatchObject({ auth: 'Bearer s3cret', cookie: 'a=b' });
    expect(seen[1]).toMatchObject({ host: `localhost:${server.port}`, auth: undefined, cookie: undefined });
  });

  it('resolves names under localhost to loopback (RFC 6761), still subject to the policy', async () => {
    const server = await serve((_req, res) => res.end('<html><body>sub</body></html>'));
    const url = `${server.origin.replace('127.0.0.1', 'docs.site.localhost')}/`;
    const page = await fetchWithHttp(fetchRequest(url));
    expect(page.statusCode).toBe(200);
    expect(page.body?.toString()).toContain('sub');
    const blocked = await failureOf(fetchWithHttp(fetchRequest(url, { network: { allowPrivateNetwork: false, skipTlsVerification: false } })));
    expect(blocked.code).toBe('SSRF_BLOCKED');
  });

  it('returns a 404 as a page, not an error', async () => {
    const server = await serve((_req, res) => res.writeHead(404, { 'Content-Type': 'text/plain' }).end('nope'));

    const page = await fetchWithHttp(fetchRequest(`${server.origin}/missing`));
    expect(page.statusCode).toBe(404);
    expect(page.body?.toString()).toBe('nope');
    expect(page.contentType).toBe('text/plain');
  });

  it('returns an empty content type when the server sends none', async () => {
    const server = await serve((_req, res) => {
      res.removeHeader('Content-Type');
      res.end();
    });

    const page = await fetchWithHttp(fetchRequest(server.origin));
    expect(page.contentType).toBe('');
    expect(page.body?.length).toBe(0);
  });

  it.each([
    ['gzip', 'gzip', gzipSync],
    ['br', 'br', brotliCompressSync],
    ['zlib-wrapped deflate', 'deflate', deflateSync],
    ['raw deflate', 'deflate', deflateRawSync],
  ] as const)('decompresses a %s body', async (_label, encoding, compress) => {
    const html = '<p>' + 'compressed '.repeat(1000) + '</p>';
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': encoding }).end(compress(Buffer.from(html)));
    });

    const page = await fetchWithHttp(fetchRequest(server.origin));
    expect(page.body?.toString()).toBe(html);
  });

  it('returns Shift_JIS bytes untouched', async () => {
    // "日本語のページ" in Shift_JIS.
    const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57]);
    const server = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=Shift_JIS' }).end(sjis));

    const page = await fetchWithHttp(fetchRequest(server.origin));
    expect(Buffer.isBuffer(page.body)).toBe(true);
    expect(page.body?.equals(sjis)).toBe(true);
    expect(page.contentType).toBe('text/html');
  });

  it('refuses bodies over the size cap, declared or streamed', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'Content-Length': 4096 }).end(Buffer.alloc(4096));
      } else {
        res.write(Buffer.alloc(2048));
        res.end(Buffer.alloc(2048));
      }
    });

    for (const path of ['/declared', '/chunked']) {
      const err = await failureOf(fetchWithHttp(fetchRequest(server.origin + path), { maxBytes: 1024 }));
      expect(err).toBeInstanceOf(NonRetryablePageError);
      expect(err.code).toBe('SCRAPE_CONTENT_TOO_LARGE');
    }
  });

  it('caps the decompressed size, so a compression bomb fails', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
    const server = await serve((_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(bomb));

    const err = await failureOf(fetchWithHttp(fetchRequest(server.origin), { maxBytes: 1024 * 1024 }));
    expect(err.code).toBe('SCRAPE_CONTENT_TOO_LARGE');
  });

  // In these two the server never finishes: only the deadline ends the fetch before the test times out.
  it('times out on a server that never answers', async () => {
    const server = await serve(() => undefined);

    const err = await failureOf(fetchWithHttp(fetchRequest(server.origin, { deadline: Date.now() + 500 })));

    expect(err).toBeInstanceOf(NonRetryablePageError);
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(err.message).toMatch(/^Scrape timed out after \d+ ms$/);
  });

  it('times out on a body that trickles forever', async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      timers.push(setInterval(() => res.write('x'), 20));
      res.once('close', () => timers.forEach(clearInterval));
    });
    const deadline = Date.now() + 500;

    const err = await failureOf(fetchWithHttp(fetchRequest(server.origin, { deadline })));

    expect(err.code).toBe('SCRAPE_TIMEOUT');
    timers.forEach(clearInterval);
  });

  it('fails at once when the deadline has already passed', async () => {
    const server = await serve((_req, res) => res.end('ok'));

    const err = await failureOf(fetchWithHttp(fetchRequest(server.origin, { deadline: Date.now() - 1 })));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(server.hits()).toBe(0);
  });

  it('rejects with the caller’s reason when the scrape is cancelled', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    setTimeout(() => controller.abort(reason), 100);

    await expect(fetchWithHttp(fetchRequest(server.origin, { signal: controller.signal }))).rejects.toBe(reason);
  });

  it('maps a refused connection to a retryable site error', async () => {
    const port = await closedPort();

    const err = await failureOf(fetchWithHttp(fetchRequest(`http://127.0.0.1:${port}/`)));
    expect(err).toBeInstanceOf(PageError);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe('SCRAPE_SITE_ERROR');
  });

  it('maps an unknown host to a DNS resolution error', async () => {
    const err = await failureOf(fetchWithHttp(fetchRequest('http://nonexistent.invalid/')));
    expect(err).toBeInstanceOf(NonRetryablePageError);
    expect(err.code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    expect(err.message).toContain('nonexistent.invalid');
  });

  it('rejects a non-http URL', async () => {
    const err = await failureOf(fetchWithHttp(fetchRequest('file:///etc/passwd')));
    expect(err.code).toBe('INVALID_URL');
  });

  describe('TLS', () => {
    it('fails on a self-signed certificate unless verification is skipped', async () => {
      const server = await serve((_req, res) => res.end('secure'), selfSignedCert());

      const err = await failureOf(fetchWithHttp(fetchRequest(server.origin)));
      expect(err).toBeInstanceOf(NonRetryablePageError);
      expect(err.code).toBe('SCRAPE_SSL_ERROR');

      const page = await fetchWithHttp(
        fetchRequest(server.origin, { network: { allowPrivateNetwork: true, skipTlsVerification: true } }),
      );
      expect(page.statusCode).toBe(200);
      expect(page.body?.toString()).toBe('secure');
    });
  });

  describe('SSRF', () => {
    const publicOnly = { network: { allowPrivateNetwork: false, skipTlsVerification: false } };

    it.each(['http://127.0.0.1:PORT/', 'http://localhost:PORT/', 'http://[::1]:PORT/', 'http://2130706433:PORT/'])(
      'blocks %s by default without reaching it',
      async (template) => {
        const server = await serve((_req, res) => res.end('secret'));

        const err = await failureOf(fetchWithHttp(fetchRequest(template.replace('PORT', String(server.port)), publicOnly)));

        expect(err).toBeInstanceOf(NonRetryablePageError);
        expect(err.code).toBe('SSRF_BLOCKED');
        expect(err.message).toMatch(/127\.0\.0\.1|::1/);
        expect(server.hits()).toBe(0);
      },
    );

    it('blocks a redirect to a forbidden address', async () => {
      const server = await serve((_req, res) => res.writeHead(302, { Location: `http://127.0.0.2:${server.port}/` }).end());
      const onlyLoopbackOne: AddressPolicy = (ip) => ip === '127.0.0.1';

      const err = await failureOf(fetchWithHttp(fetchRequest(`${server.origin}/start`), { policy: onlyLoopbackOne }));

      expect(err.code).toBe('SSRF_BLOCKED');
      expect(err.message).toContain('127.0.0.2');
      expect(server.hits()).toBe(1);
    });

    it('checks the address actually connected to, not only the one looked up', async () => {
      const server = await serve((_req, res) => res.end('secret'));
      // Allows the first look at the target, then refuses: like a DNS answer that rebinds
      // between the lookup and the connection. Only the check on the socket can catch it.
      const seen: string[] = [];
      const rebinding: AddressPolicy = (ip) => {
        seen.push(ip);
        return seen.length === 1;
      };

      const err = await failureOf(fetchWithHttp(fetchRequest(server.origin), { policy: rebinding }));

      expect(err.code).toBe('SSRF_BLOCKED');
      expect(seen).toEqual(['127.0.0.1', '127.0.0.1']);
      expect(server.hits()).toBe(0);
    });

    it('connects to the allowed address when a name has several', async () => {
      const server = await serve((_req, res) => res.end('ok'));

      const page = await fetchWithHttp(fetchRequest(`http://localhost:${server.port}/`), { policy: (ip) => ip === '127.0.0.1' });
      expect(page.statusCode).toBe(200);
    });

    it('keeps the cloud metadata address blocked even when private networks are allowed', async () => {
      const err = await failureOf(fetchWithHttp(fetchRequest('http://169.254.169.254/latest/meta-data/')));
      expect(err.code).toBe('SSRF_BLOCKED');
    });
  });
});
