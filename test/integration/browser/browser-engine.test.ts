import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrawlError } from '../../../lib/errors.js';
import { fetchWithBrowser, timezoneForCountry } from '../../../scraper/engines/browser.js';
import { addressPolicyFor } from '../../../scraper/net/address-policy.js';
import { startGuardProxy, type GuardProxy } from '../../../scraper/net/guard-proxy.js';
import type { BrowserFetchRequest } from '../../../scraper/types.js';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { closedPort } from '../../helpers/closed-port.js';
import { PDF_BYTES, PNG_BYTES, startFixtureServer, type FixtureServer } from './fixture-server.js';
import { failureOf } from '../../helpers/trawl-failure.js';

let site: FixtureServer;
let pool: BrowserPool;

beforeAll(async () => {
  site = await startFixtureServer();
  pool = createBrowserPool({ maxConcurrentPages: 2 });
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
});

/** A deadline past any test's timeout, for tests whose fetch must end some other way. */
const FAR_DEADLINE_MS = 600_000;

function request(url: string, overrides: Partial<BrowserFetchRequest> = {}): BrowserFetchRequest {
  return {
    url,
    network: { allowPrivateNetwork: true, skipTlsVerification: false },
    signal: new AbortController().signal,
    deadline: Date.now() + 20_000,
    waitForMs: 0,
    blockAds: false,
    ...overrides,
  };
}

function textOf(html: string | undefined, id: string): string | undefined {
  return new RegExp(`<p id="${id}">([^<]*)</p>`).exec(html ?? '')?.[1];
}

interface PageEnvironment {
  ua: string;
  width: number;
  language: string;
  timeZone: string;
  touch: number;
  webdriver: boolean;
  plugins: number;
  chrome: string;
}

function environmentOf(html: string | undefined): PageEnvironment {
  return JSON.parse((textOf(html, 'env') ?? '{}').replaceAll('&quot;', '"')) as PageEnvironment;
}

describe('fetchWithBrowser: content', () => {
  it('captures content that JavaScript renders after load', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/js-after-load`));
    expect(page.engine).toBe('browser');
    expect(page.statusCode).toBe(200);
    expect(page.contentType).toBe('text/html');
    expect(page.html).toContain('Rendered after load: 42');
  });

  it.each([30, 80])('waits for a fetch a timer starts %i ms after load, though the network was quiet before it', async (delay) => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/js-timer-after-load?delay=${delay}`));
    expect(page.html).toContain('Rendered on a timer: 42');
  });

  it('waits for a fetch at the end of a chain of timers', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/js-timer-chain`));
    expect(page.html).toContain('Rendered after two timers: 42');
  });

  it('waits for a fetch that the end of another one starts', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/js-fetch-chain`));
    expect(page.html).toContain('Rendered after a chain: 42');
  });

  it('returns the document with its doctype, as the scripts left it', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/js-after-load`));
    expect(page.html).toMatch(/^<!DOCTYPE html><html><head>/);
    expect(page.html).toMatch(/<\/html>$/);
  });

  it('passes a 404 through with its page', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/missing`));
    expect(page.statusCode).toBe(404);
    expect(page.html).toContain('Nothing here');
  });

  it('reports the final URL, status and headers after a redirect', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/redirect`));
    expect(page.url).toBe(`${site.url}/final`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-fixture']).toBe('final');
    expect(page.html).toContain('Final page');
  });

  it('follows a script navigation that happens after load', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/js-redirect`));
    expect(page.url).toBe(`${site.url}/final`);
    expect(page.headers['x-fixture']).toBe('final');
    expect(page.html).toContain('Final page');
  });

  it('returns the bytes of non-HTML responses', async () => {
    const json = await fetchWithBrowser(pool, request(`${site.url}/json`));
    expect(json.contentType).toBe('application/json');
    expect(json.html).toBeUndefined();
    expect(json.body?.toString()).toBe('{"hello":"world"}');

    const png = await fetchWithBrowser(pool, request(`${site.url}/png`));
    expect(png.contentType).toBe('image/png');
    expect(png.body?.equals(PNG_BYTES)).toBe(true);

    const pdf = await fetchWithBrowser(pool, request(`${site.url}/pdf`));
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.body?.equals(PDF_BYTES)).toBe(true);
  });

  it('returns a 204 as an empty page', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/no-content`));
    expect(page.statusCode).toBe(204);
    expect(page.html).toBe('');
  });

  it('returns a 401 with an auth challenge as an empty page', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/basic-auth`));
    expect(page.statusCode).toBe(401);
    expect(page.headers['www-authenticate']).toBe('Basic realm="fixture"');
    expect(page.url).toBe(`${site.url}/basic-auth`);
    expect(page.html).toBe('');
  });

  it('refuses file downloads as unsupported', async () => {
    const err = await failureOf(fetchWithBrowser(pool, request(`${site.url}/download`)));
    expect(err.code).toBe('SCRAPE_UNSUPPORTED_FILE_ERROR');
    expect(err.retryable).toBe(false);
  });

  it('waits for waitFor before capturing content that appears late', async () => {
    const early = await fetchWithBrowser(pool, request(`${site.url}/late`));
    expect(textOf(early.html, 'late')).toBe('not yet');
    const late = await fetchWithBrowser(pool, request(`${site.url}/late`, { waitForMs: 1_600 }));
    expect(textOf(late.html, 'late')).toBe('LATE CONTENT');
  });

  it('caps the settle when a request never finishes', async () => {
    // The deadline is out of the test's reach: an uncapped settle would wait for the long poll
    // until the test timed out, however fast the machine.
    const page = await fetchWithBrowser(pool, request(`${site.url}/long-poll`, { deadline: Date.now() + FAR_DEADLINE_MS }));
    expect(page.html).toContain('ready');
  });
});

describe('fetchWithBrowser: screenshots', () => {
  it('takes a PNG by default', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/plain`, { screenshot: { fullPage: false } }));
    expect(page.screenshot?.mimeType).toBe('image/png');
    expect(page.screenshot?.data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(page.screenshot?.data.readUInt32BE(16)).toBe(1280);
    expect(page.screenshot?.data.readUInt32BE(20)).toBe(800);
  });

  it('takes a JPEG when a quality is given', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/plain`, { screenshot: { fullPage: false, quality: 60 } }));
    expect(page.screenshot?.mimeType).toBe('image/jpeg');
    expect(page.screenshot?.data.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
  });

  it('captures the whole page when fullPage is set, at the requested viewport', async () => {
    const page = await fetchWithBrowser(
      pool,
      request(`${site.url}/tall`, { screenshot: { fullPage: true, viewport: { width: 600, height: 400 } } }),
    );
    const png = page.screenshot?.data;
    expect(png?.readUInt32BE(16)).toBe(600);
    expect(png?.readUInt32BE(20)).toBe(3000);
  });
});

describe('fetchWithBrowser: emulation', () => {
  it('emulates a phone when mobile is set', async () => {
    const desktop = environmentOf((await fetchWithBrowser(pool, request(`${site.url}/environment`))).html);
    expect(desktop.width).toBe(1280);
    expect(desktop.ua).not.toContain('Headless');

    const mobile = environmentOf((await fetchWithBrowser(pool, request(`${site.url}/environment`, { mobile: true }))).html);
    expect(mobile.ua).toMatch(/Mobile/);
    expect(mobile.width).toBeLessThan(500);
    expect(mobile.touch).toBeGreaterThan(0);
  });

  it('sets Accept-Language, locale and time zone from the location', async () => {
    const de = await fetchWithBrowser(pool, request(`${site.url}/environment`, { location: { country: 'DE' } }));
    expect(textOf(de.html, 'accept-language')).toBe('de-DE');
    expect(environmentOf(de.html)).toMatchObject({ language: 'de-DE', timeZone: 'Europe/Berlin' });

    const jp = await fetchWithBrowser(pool, request(`${site.url}/environment`, { location: { country: 'JP', languages: ['ja', 'en'] } }));
    expect(textOf(jp.html, 'accept-language')).toBe('ja');
    expect(environmentOf(jp.html)).toMatchObject({ language: 'ja', timeZone: 'Asia/Tokyo' });

    const us = await fetchWithBrowser(pool, request(`${site.url}/environment`, { location: { country: 'US' } }));
    expect(environmentOf(us.html)).toMatchObject({ language: 'en-US', timeZone: 'America/New_York' });
  });

  it('sends custom headers, and a custom user agent to both the server and the page', async () => {
    const page = await fetchWithBrowser(
      pool,
      request(`${site.url}/environment`, { headers: { 'X-Custom': 'yes', 'User-Agent': 'TrawlTest/1.0' } }),
    );
    expect(textOf(page.html, 'custom')).toBe('yes');
    expect(textOf(page.html, 'header-ua')).toBe('TrawlTest/1.0');
    expect(environmentOf(page.html).ua).toBe('TrawlTest/1.0');
  });

  it('shows a page none of the usual headless tells: navigator.webdriver, a headless UA or client hint, no plugins', async () => {
    const page = await fetchWithBrowser(pool, request(`${site.url}/environment`));
    expect(environmentOf(page.html)).toMatchObject({ webdriver: false, chrome: 'object' });
    expect(environmentOf(page.html).plugins).toBeGreaterThan(0);
    expect(environmentOf(page.html).ua).not.toMatch(/headless/i);
    expect(textOf(page.html, 'header-ua')).not.toMatch(/headless/i);
    expect(textOf(page.html, 'sec-ch-ua')).toMatch(/Chromium/);
    expect(textOf(page.html, 'sec-ch-ua')).not.toMatch(/headless/i);
  });

  it('maps countries to their main time zone', () => {
    expect(timezoneForCountry('us')).toBe('America/New_York');
    expect(timezoneForCountry('FR')).toBe('Europe/Paris');
    expect(timezoneForCountry('ZZ')).toBe('UTC');
  });
});

describe('fetchWithBrowser: deadline and cancellation', () => {
  it('throws SCRAPE_TIMEOUT at the deadline when the page never loads, and closes it', async () => {
    // The page never loads: only the deadline ends the fetch before the test times out.
    const err = await failureOf(fetchWithBrowser(pool, request(`${site.url}/never-loads`, { deadline: Date.now() + 2_000 })));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(err.retryable).toBe(false);
    expect(pool.stats().openPages).toBe(0);
  });

  it('throws SCRAPE_TIMEOUT when waitFor runs past the deadline', async () => {
    const err = await failureOf(
      fetchWithBrowser(pool, request(`${site.url}/plain`, { deadline: Date.now() + 2_000, waitForMs: 10_000 })),
    );
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(pool.stats().openPages).toBe(0);
  });

  it('throws SCRAPE_TIMEOUT when the signal aborts, and closes the page', async () => {
    // The page never loads and the deadline is out of the test's reach: only the abort ends it.
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 800);
    const err = await failureOf(
      fetchWithBrowser(pool, request(`${site.url}/never-loads`, { signal: controller.signal, deadline: Date.now() + FAR_DEADLINE_MS })),
    );
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(pool.stats().openPages).toBe(0);
  });

  it('throws SCRAPE_TIMEOUT without opening a page when the deadline already passed', async () => {
    const served = pool.stats().pagesServed;
    const err = await failureOf(fetchWithBrowser(pool, request(`${site.url}/plain`, { deadline: Date.now() - 1 })));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(pool.stats().pagesServed).toBe(served);
  });
});

describe('fetchWithBrowser: network errors', () => {
  it('accepts a self-signed certificate with skipTlsVerification', async () => {
    const page = await fetchWithBrowser(
      pool,
      request(`${site.httpsUrl}/plain`, { network: { allowPrivateNetwork: true, skipTlsVerification: true } }),
    );
    expect(page.statusCode).toBe(200);
    expect(page.html).toContain('plain page');
  });

  it('fails with SCRAPE_SSL_ERROR on a self-signed certificate otherwise', async () => {
    const err = await failureOf(fetchWithBrowser(pool, request(`${site.httpsUrl}/plain`)));
    expect(err.code).toBe('SCRAPE_SSL_ERROR');
    expect(err.retryable).toBe(false);
  });

  it('fails with SCRAPE_DNS_RESOLUTION_ERROR for a name that does not resolve', async () => {
    const err = await failureOf(fetchWithBrowser(pool, request('http://no-such-host.invalid/')));
    expect(err.code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    expect(err.retryable).toBe(false);
  });

  it('fails with a retryable SCRAPE_SITE_ERROR when the connection is refused', async () => {
    const closed = await startFixtureServer();
    await closed.close();
    const err = await failureOf(fetchWithBrowser(pool, request(`${closed.url}/plain`)));
    expect(err.code).toBe('SCRAPE_SITE_ERROR');
    expect(err.retryable).toBe(true);
  });
});

describe('fetchWithBrowser: checkUrl', () => {
  const refuseFinal = async (url: string): Promise<void> => {
    if (new URL(url).pathname === '/final') throw new TrawlError('SSRF_BLOCKED', `refused ${url}`);
  };

  it('refuses a redirect hop before it is requested', async () => {
    const before = site.requests.length;
    const err = await failureOf(fetchWithBrowser(pool, request(`${site.url}/redirect`, { checkUrl: refuseFinal })));
    expect(err.code).toBe('SSRF_BLOCKED');
    expect(site.requests.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });

  it('leaves no guard behind on the page for the next scrapes', async () => {
    // One page, so each scrape gets the previous one's page and CDP session.
    const single = createBrowserPool({ maxConcurrentPages: 1 });
    const recorder = () => {
      const checked: string[] = [];
      return { checked, checkUrl: async (url: string) => void checked.push(new URL(url).pathname) };
    };
    const first = recorder();
    const third = recorder();
    try {
      await fetchWithBrowser(single, request(`${site.url}/redirect`, { checkUrl: first.checkUrl }));
      expect(first.checked).toContain('/final');
      const seen = first.checked.length;
      // Interception left on would hold this navigation with nobody to continue it.
      const unguarded = await fetchWithBrowser(single, request(`${site.url}/redirect`));
      expect(unguarded.html).toContain('Final page');
      // A listener left behind would ask the first scrape's check about this one's hops too.
      const guarded = await fetchWithBrowser(single, request(`${site.url}/redirect`, { checkUrl: third.checkUrl }));
      expect(guarded.html).toContain('Final page');
      expect(third.checked).toContain('/final');
      expect(first.checked).toHaveLength(seen);
      expect(single.stats().pagesReused).toBe(2);
    } finally {
      await single.close();
    }
  });
});

describe('fetchWithBrowser: behind the guard proxy', () => {
  let publicOnlyGuard: GuardProxy;
  let publicOnlyPool: BrowserPool;

  beforeAll(async () => {
    publicOnlyGuard = await startGuardProxy({ policy: addressPolicyFor(false) });
    publicOnlyPool = createBrowserPool({ maxConcurrentPages: 2, proxyServer: publicOnlyGuard.url });
  });

  afterAll(async () => {
    await publicOnlyPool?.close();
    await publicOnlyGuard?.close();
  });

  it('sends loopback requests through the proxy', async () => {
    const guard = await startGuardProxy({ policy: addressPolicyFor(true) });
    const proxied = createBrowserPool({ proxyServer: guard.url });
    try {
      const page = await fetchWithBrowser(proxied, request(`${site.url}/js-after-load`));
      expect(page.html).toContain('Rendered after load: 42');
      // The document and its fetch both went through the proxy.
      expect(guard.stats().requests).toBeGreaterThanOrEqual(2);
    } finally {
      await proxied.close();
      await guard.close();
    }
  });

  it('reports an unreachable target as the HTTP engine does, not as a page with status 502', async () => {
    const guard = await startGuardProxy({ policy: addressPolicyFor(true) });
    const proxied = createBrowserPool({ proxyServer: guard.url });
    const closed = await closedPort();
    try {
      const refused = await failureOf(fetchWithBrowser(proxied, request(`http://127.0.0.1:${closed}/`)));
      expect(refused).toMatchObject({ code: 'SCRAPE_SITE_ERROR', details: { code: 'ECONNREFUSED' } });
      const unresolved = await failureOf(fetchWithBrowser(proxied, request('http://no-such-host.invalid/')));
      expect(unresolved.code).toBe('SCRAPE_DNS_RESOLUTION_ERROR');
    } finally {
      await proxied.close();
      await guard.close();
    }
  });

  it('fails with SSRF_BLOCKED when the proxy refuses an http target', async () => {
    const err = await failureOf(
      fetchWithBrowser(publicOnlyPool, request(`${site.url}/plain`, { network: { allowPrivateNetwork: false, skipTlsVerification: false } })),
    );
    expect(err.code).toBe('SSRF_BLOCKED');
    expect(err.retryable).toBe(false);
  });

  it('fails with SSRF_BLOCKED when the proxy refuses an https tunnel', async () => {
    const err = await failureOf(
      fetchWithBrowser(
        publicOnlyPool,
        request(`${site.httpsUrl}/plain`, { network: { allowPrivateNetwork: false, skipTlsVerification: true } }),
      ),
    );
    expect(err.code).toBe('SSRF_BLOCKED');
  });
});
