/**
 * Upstream proxies, ad blocking and skipTlsVerification in the browser, end to end.
 *
 * Proxies run on a second API + worker pair whose environment configures three counting proxies
 * (test/helpers/counting-proxy.ts) as the basic, enhanced and German pools, on its own task
 * queue. The fixture server notes the remote port of every request, and each counting proxy the
 * local ports it connected from, so "no request bypasses the proxy" is checked per request, for
 * plain HTTP and HTTPS, the page and its subresources, in both engines, and for the robots.txt
 * and sitemaps a crawl or map reads.
 *
 * Ad blocking runs on the shared stack with the filter lists uBlock Origin ships (Debian's
 * webext-ublock-origin-chromium): a first-party `/jquery.popunder.js` (EasyList) and `/__utm.gif`
 * (EasyPrivacy) must never reach the fixture with blockAds, and must without it.
 */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { selfSignedCert } from '../helpers/self-signed.js';
import { e2eContext } from '../e2e/context.js';

const { apiUrl, apiKey, databaseUrl, temporalAddress } = e2eContext();

interface Hit {
  path: string;
  query: string;
  secure: boolean;
  remotePort: number | undefined;
}

const PARAGRAPH = '<p>This page exists so the scraper has real text to turn into markdown, well over the few words a JavaScript shell would have.</p>';

const pages: Record<string, { type: string; body: string | Buffer }> = {
  // Subresources in both kinds, an image and a script; `{{q}}` repeats the page's query string on
// them, so each scrape's requests can be told apart.
  '/page': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>Proxied</title><script src="/app.js{{q}}"></script></head>
<body><h1>Proxied page</h1>${PARAGRAPH}<img src="/img/photo.png{{q}}" alt="photo"></body></html>`,
  },
  '/ads': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>Ads</title><script src="/app.js{{q}}"></script><script src="/jquery.popunder.js{{q}}"></script></head>
<body><h1>Article with ads</h1>${PARAGRAPH}<img src="/img/photo.png{{q}}" alt="photo"><img src="/__utm.gif{{q}}" alt="">
<div class="cky-consent-container"><p>We value your privacy COOKIE BANNER TEXT</p>
<button data-cky-tag="accept-button">Accept All</button>
<button data-cky-tag="reject-button" onclick="this.closest('.cky-consent-container').remove()">Reject All</button></div>
</body></html>`,
  },
  '/app.js': { type: 'text/javascript', body: 'window.appLoaded = true;' },
  '/jquery.popunder.js': { type: 'text/javascript', body: 'window.popunder = true;' },
  '/__utm.gif': {
    type: 'image/gif',
    body: Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'),
  },
  '/img/photo.png': {
    type: 'image/png',
    body: Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    ),
  },
};

const hits: Hit[] = [];
let servers: Array<http.Server | https.Server> = [];
let siteUrl: string;
let secureUrl: string;

async function startSite(): Promise<void> {
  const handler: http.RequestListener = (req, res) => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    hits.push({ path, query, secure: 'encrypted' in req.socket, remotePort: req.socket.remotePort });
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // Fresh every time, so Chromium asks for each subresource again.
    const body = typeof page.body === 'string' ? page.body.replaceAll('{{q}}', query ? `?${query}` : '') : page.body;
    res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' }).end(body);
  };
  const plain = http.createServer(handler);
  const secure = https.createServer(selfSignedCert(), handler);
  servers = [plain, secure];
  plain.listen(0, '127.0.0.1');
  secure.listen(0, '127.0.0.1');
  await Promise.all([once(plain, 'listening'), once(secure, 'listening')]);
  siteUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
}

/** The fixture hits of one scrape, told apart by a unique query string. */
function hitsOf(tag: string): Hit[] {
  return hits.filter((hit) => hit.query === `t=${tag}`);
}

let counter = 0;
function tagged(base: string, path: string): { url: string; tag: string } {
  const tag = `${Date.now()}-${++counter}`;
  return { url: `${base}${path}?t=${tag}`, tag };
}

beforeAll(async () => {
  await startSite();
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

describe('upstream proxies', () => {
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;
  let basic: CountingProxy;
  let enhanced: CountingProxy;
  let germany: CountingProxy;
  const proxies = (): CountingProxy[] => [basic, enhanced, germany];

  beforeAll(async () => {
    // The basic pool wants credentials (the browser never sees them) and turns away one marked path.
    basic = await startCountingProxy({
      credentials: { username: 'trawl', password: 'p@ss:word' },
      refuse: (url) => (url.pathname === '/page' && url.searchParams.get('t')?.startsWith('refuse-') ? 403 : undefined),
    });
    enhanced = await startCountingProxy();
    germany = await startCountingProxy();
    stack = await startStack({
      databaseUrl,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      env: {
        LOG_LEVEL: 'warn',
        ALLOW_PRIVATE_NETWORK: 'true',
        TEMPORAL_TASK_QUEUE: 'trawl-proxied',
        PROXY_BASIC_URLS: basic.url,
        PROXY_ENHANCED_URLS: enhanced.url,
        PROXY_COUNTRY_DE_URLS: germany.url,
      },
      log: () => undefined,
    });
    api = apiClient(stack.apiUrl, await createKeyWithCli(databaseUrl, 'proxied-team'));
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all(proxies().map((proxy) => proxy?.close()));
  });

  const scrape = (body: Record<string, unknown>) => api('/v2/scrape', { body: { maxAge: 0, storeInCache: false, timeout: 30_000, ...body } });

  /** Every fixture hit of the scrape came from a connection `proxy` opened. */
  function expectAllThrough(proxy: CountingProxy, tag: string, paths: string[]): void {
    const seen = hitsOf(tag);
    expect(seen.map((hit) => hit.path).sort()).toEqual(expect.arrayContaining(paths));
    const bypassing = seen.filter((hit) => !proxy.opened(hit.remotePort));
    expect(bypassing).toEqual([]);
  }

  it.each([
    ['http engine, plain HTTP', () => siteUrl, {}, ['/page']],
    ['http engine, HTTPS', () => secureUrl, {}, ['/page']],
    ['browser, plain HTTP', () => siteUrl, { formats: ['screenshot'] }, ['/page', '/app.js', '/img/photo.png']],
    ['browser, HTTPS', () => secureUrl, { formats: ['screenshot'] }, ['/page', '/app.js', '/img/photo.png']],
  ])('%s: the page and every subresource go through the basic pool', async (_name, base, options, paths) => {
    const { url, tag } = tagged(base(), '/page');
    const res = await scrape({ url, ...options });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata).toMatchObject({ statusCode: 200, proxyUsed: 'basic' });
    expectAllThrough(basic, tag, paths);
    expect(basic.unauthorized).toBe(0);
    if (base() === secureUrl) expect(basic.connects).toContain(new URL(secureUrl).host);
    else expect(basic.requests).toContain(url);
  });

  it.each([
    ['http engine', {}],
    ['browser', { formats: ['screenshot'] }],
  ])('%s: auto retries through the enhanced pool after a 403 from basic, with no surcharge', async (_name, options) => {
    const tag = `refuse-${++counter}`;
    const url = `${siteUrl}/page?t=${tag}`;
    const res = await scrape({ url, proxy: 'auto', ...options });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata).toMatchObject({ statusCode: 200, proxyUsed: 'enhanced', creditsUsed: 1 });
    expect(basic.requests).toContain(url);
    expect(enhanced.requests).toContain(url);
    expectAllThrough(enhanced, tag, ['/page']);
  });

  it('basic alone reports the 403 the basic pool gave', async () => {
    const url = `${siteUrl}/page?t=refuse-${++counter}`;
    const res = await scrape({ url, proxy: 'basic' });
    expect(res.body.data.metadata).toMatchObject({ statusCode: 403, proxyUsed: 'basic' });
    expect(enhanced.requests).not.toContain(url);
  });

  it('enhanced goes through the enhanced pool only', async () => {
    const { url, tag } = tagged(siteUrl, '/page');
    const res = await scrape({ url, proxy: 'enhanced', formats: ['screenshot'] });
    expect(res.body.data.metadata.proxyUsed).toBe('enhanced');
    expectAllThrough(enhanced, tag, ['/page', '/app.js', '/img/photo.png']);
    expect(basic.requests.filter((seen) => seen.includes(tag))).toEqual([]);
  });

  it.each([
    ['http engine', {}, ['/page']],
    ['browser', { formats: ['screenshot'] }, ['/page', '/app.js', '/img/photo.png']],
  ])('%s: location.country goes through that country’s pool', async (_name, options, paths) => {
    const { url, tag } = tagged(siteUrl, '/page');
    const res = await scrape({ url, location: { country: 'de' }, ...options });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.proxyUsed).toBe('basic');
    expectAllThrough(germany, tag, paths);
    expect(basic.requests.filter((seen) => seen.includes(tag))).toEqual([]);

    const elsewhere = tagged(siteUrl, '/page');
    await scrape({ url: elsewhere.url, location: { country: 'FR' }, ...options });
    expectAllThrough(basic, elsewhere.tag, ['/page']);
  });

  /** The fixture hits made while `run` ran, with the paths a job's own site requests use. */
  async function siteRequestsDuring(run: () => Promise<void>): Promise<Hit[]> {
    const from = hits.length;
    await run();
    return hits.slice(from).filter((hit) => hit.path === '/robots.txt' || hit.path === '/sitemap.xml');
  }

  it("a crawl's robots.txt and sitemap requests leave through its proxy pool, as its pages do (#19 item 10)", async () => {
    const seen = await siteRequestsDuring(async () => {
      const res = await api('/v2/crawl', { body: { url: `${siteUrl}/page`, limit: 1, scrapeOptions: { proxy: 'enhanced' } } });
      expect(res.status).toBe(200);
      expect((await waitForJobEnd(api, 'crawl', res.body.id)).status).toBe('completed');
    });
    expect(seen.map((hit) => hit.path)).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml']));
    expect(seen.filter((hit) => !enhanced.opened(hit.remotePort))).toEqual([]);
  });

  it("a map's robots.txt, sitemap and start page leave through its country's pool (#19 item 10)", async () => {
    const { url, tag } = tagged(siteUrl, '/page');
    const seen = await siteRequestsDuring(async () => {
      const res = await api('/v2/map', { body: { url, location: { country: 'DE' } } });
      expect(res.status).toBe(200);
    });
    expect(seen.map((hit) => hit.path)).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml']));
    expect(seen.filter((hit) => !germany.opened(hit.remotePort))).toEqual([]);
    expectAllThrough(germany, tag, ['/page']);
  });
});

describe('blockAds', () => {
  const api = apiClient(apiUrl, apiKey);
  const scrape = (body: Record<string, unknown>) =>
    api('/v2/scrape', { body: { maxAge: 0, storeInCache: false, timeout: 30_000, formats: ['rawHtml', 'screenshot'], ...body } });

  it('keeps ad and tracker requests from ever reaching the site, and dismisses the cookie banner', async () => {
    const { url, tag } = tagged(siteUrl, '/ads');
    const res = await scrape({ url, blockAds: true });
    expect(res.status).toBe(200);
    const paths = hitsOf(tag).map((hit) => hit.path);
    expect(paths).toEqual(expect.arrayContaining(['/ads', '/app.js', '/img/photo.png']));
    expect(paths).not.toContain('/jquery.popunder.js');
    expect(paths).not.toContain('/__utm.gif');
    expect(res.body.data.rawHtml).toContain('Article with ads');
    expect(res.body.data.rawHtml).not.toContain('COOKIE BANNER TEXT');
  });

  it('lets them through with blockAds: false', async () => {
    const { url, tag } = tagged(siteUrl, '/ads');
    const res = await scrape({ url, blockAds: false });
    expect(res.status).toBe(200);
    const paths = hitsOf(tag).map((hit) => hit.path);
    expect(paths).toEqual(expect.arrayContaining(['/ads', '/app.js', '/img/photo.png', '/jquery.popunder.js', '/__utm.gif']));
    expect(res.body.data.rawHtml).toContain('COOKIE BANNER TEXT');
  });
});

describe('skipTlsVerification in the browser engine', () => {
  const api = apiClient(apiUrl, apiKey);

  it('renders a self-signed HTTPS page by default, and refuses it with SCRAPE_SSL_ERROR when verification is on', async () => {
    const accepted = await api('/v2/scrape', { body: { url: `${secureUrl}/page`, formats: ['screenshot', 'markdown'], maxAge: 0 } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.markdown).toContain('Proxied page');
    expect(accepted.body.data.screenshot).toBeTruthy();

    const refused = await api('/v2/scrape', {
      body: { url: `${secureUrl}/page`, formats: ['screenshot'], skipTlsVerification: false, maxAge: 0, timeout: 15_000 },
    });
    expect(refused.body).toMatchObject({ success: false, code: 'SCRAPE_SSL_ERROR' });
  });
});
