/**
 * POST /v2/scrape end to end: real API, Temporal dev server, worker with Chromium, Postgres,
 * against fixture pages on 127.0.0.1.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { ARTICLE_PARAGRAPHS, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

function scrape(body: Record<string, unknown>) {
  return api('/v2/scrape', { body });
}

describe('content', () => {
  it('does not let a subresource that never loads hold a browser scrape until its timeout', async () => {
    // The image's host accepts the request and never answers, so the page's `load` never fires.
    const stalled: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>Stalled ad</h1><p>The article is here.</p><img src="/ad.png"></body></html>');
      } else stalled.push(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
      // A scrape that waited for `load` would end at its timeout whatever it is; this one is long
      // enough for a cold Chromium on a loaded machine.
      const res = await scrape({ url, formats: ['markdown', 'screenshot'], timeout: 25_000 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.markdown).toContain('The article is here.');
      expect(stalled.length).toBeGreaterThan(0);
    } finally {
      for (const res of stalled) res.destroy();
      server.close();
    }
  }, 40_000);

  it('renders a JavaScript-only page in the browser and returns its markdown', async () => {
    const res = await scrape({ url: `${site.url}/js-rendered` });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.markdown).toContain('Client Side Heading');
    expect(res.body.data.markdown).toContain('only exists after JavaScript runs');
    expect(res.body.data.metadata.title).toBe('Rendered by JavaScript');
  });

  it('keeps the article and drops nav, header, footer, sidebar and ads by default', async () => {
    const res = await scrape({ url: `${site.url}/article` });
    expect(res.status).toBe(200);
    const md: string = res.body.data.markdown;
    for (const p of ARTICLE_PARAGRAPHS) expect(md).toContain(p);
    expect(md).toContain('| Engine | Cost |');
    for (const boilerplate of ['NAVLINK', 'SITE HEADER BANNER', 'FOOTER COPYRIGHT', 'SIDEBAR RELATED', 'ADVERTISEMENT']) {
      expect(md).not.toContain(boilerplate);
    }
    const full = await scrape({ url: `${site.url}/article`, onlyMainContent: false });
    expect(full.body.data.markdown).toContain('FOOTER COPYRIGHT');
    expect(full.body.data.markdown).toContain(ARTICLE_PARAGRAPHS[0]);
  });

  it('applies includeTags and excludeTags', async () => {
    const only = await scrape({ url: `${site.url}/article`, onlyMainContent: false, includeTags: ['table'] });
    expect(only.body.data.markdown).toContain('| Engine | Cost |');
    expect(only.body.data.markdown).not.toContain(ARTICLE_PARAGRAPHS[0]);
    const without = await scrape({ url: `${site.url}/article`, excludeTags: ['table'] });
    expect(without.body.data.markdown).not.toContain('| Engine | Cost |');
    expect(without.body.data.markdown).toContain(ARTICLE_PARAGRAPHS[0]);
  });

  it('returns every metadata field, with absolute favicon and sourceURL exactly as requested', async () => {
    const requested = `${site.url}/article?utm=1`;
    const res = await scrape({ url: requested });
    const m = res.body.data.metadata;
    expect(m).toMatchObject({
      title: 'Durable Crawling',
      description: 'How durable crawls work',
      language: 'en',
      keywords: 'crawl, temporal',
      ogTitle: 'Durable Crawling (OG)',
      author: 'Trawl Team',
      favicon: `${site.url}/favicon.ico`,
      sourceURL: requested,
      url: requested,
      statusCode: 200,
      proxyUsed: 'basic',
      creditsUsed: 1,
    });
    expect(m['custom-tag']).toEqual(['one', 'two']);
    expect(m.contentType).toMatch(/text\/html/);
    expect(m.scrapeId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('decodes a Shift_JIS page', async () => {
    const res = await scrape({ url: `${site.url}/shift-jis` });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.title).toBe('日本語のページ');
    expect(res.body.data.markdown).toContain('こんにちは世界');
  });

  it('returns a JSON URL as a fenced json block', async () => {
    const res = await scrape({ url: `${site.url}/data.json` });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toMatch(/^```json\n[\s\S]*"name": "trawl"[\s\S]*\n```$/);
  });

  it('replaces base64 images but keeps alt text, unless asked not to', async () => {
    const res = await scrape({ url: `${site.url}/base64-images`, formats: ['markdown', 'images'] });
    expect(res.body.data.markdown).toContain('![tiny pixel](<Base64-Image-Removed>)');
    expect(res.body.data.markdown).not.toContain('data:image/png');
    expect(res.body.data.images).toContain(`${site.url}/img/remote.png`);
    const kept = await scrape({ url: `${site.url}/base64-images`, removeBase64Images: false });
    expect(kept.body.data.markdown).toContain('data:image/png;base64,');
  });

  it('follows redirects and reports the final url', async () => {
    const res = await scrape({ url: `${site.url}/redirect-1` });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.sourceURL).toBe(`${site.url}/redirect-1`);
    expect(res.body.data.metadata.url).toBe(`${site.url}/final`);
    expect(res.body.data.markdown).toContain('followed the redirects');
  });

  it.each([
    ['the HTTP engine', {}],
    ['the browser', { waitFor: 1 }],
  ])('reports provenance through %s: the redirects, the hash of what the server sent and of the markdown (Trawl)', async (_engine, options) => {
    const res = await scrape({ url: `${site.url}/redirect-1`, ...options });
    const { metadata, markdown } = res.body.data;
    expect(metadata.redirectChain).toEqual([
      { url: `${site.url}/redirect-1`, statusCode: 302 },
      { url: `${site.url}/redirect-2`, statusCode: 302 },
    ]);
    expect(metadata.contentHash).toBe(createHash('sha256').update(markdown).digest('hex'));
    expect(metadata.rawHash).toMatch(/^[0-9a-f]{64}$/);
    const direct = await scrape({ url: `${site.url}/final`, ...options });
    expect(direct.body.data.metadata.redirectChain).toBeUndefined();
    // The same bytes and the same markdown hash alike, however the page was reached.
    expect(direct.body.data.metadata.contentHash).toBe(metadata.contentHash);
    if (!('waitFor' in options)) expect(direct.body.data.metadata.rawHash).toBe(metadata.rawHash);
  });

  it('passes a target 404 through as metadata.statusCode, not as an API error', async () => {
    const res = await scrape({ url: `${site.url}/not-found` });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata.statusCode).toBe(404);
  });

  it('scrapes a self-signed HTTPS site by default and refuses it with skipTlsVerification false', async () => {
    const ok = await scrape({ url: `${site.httpsUrl}/final` });
    expect(ok.status).toBe(200);
    expect(ok.body.data.markdown).toContain('followed the redirects');
    const strict = await scrape({ url: `${site.httpsUrl}/final`, skipTlsVerification: false });
    expect(strict.body.success).toBe(false);
    expect(strict.body.code).toBe('SCRAPE_SSL_ERROR');
  });
});

describe('formats', () => {
  it('returns html, rawHtml, links and images, with absolute URLs', async () => {
    const res = await scrape({ url: `${site.url}/article`, formats: ['markdown', 'html', 'rawHtml', 'links', 'images'] });
    const d = res.body.data;
    expect(d.rawHtml).toContain('<nav>');
    expect(d.html).toContain('Durable Crawling');
    expect(d.html).not.toContain('FOOTER COPYRIGHT');
    expect(d.links).toContain(`${site.url}/docs`);
    expect(d.links.every((l: string) => l.startsWith('http'))).toBe(true);
    expect(d.images).toContain(`${site.url}/img/diagram.png`);
  });

  it('gives the same result for string and object formats', async () => {
    const a = await scrape({ url: `${site.url}/article`, formats: ['markdown', 'links'] });
    const b = await scrape({ url: `${site.url}/article`, formats: [{ type: 'markdown' }, { type: 'links' }] });
    expect(b.body.data.markdown).toBe(a.body.data.markdown);
    expect(b.body.data.links).toEqual(a.body.data.links);
  });

  it('omits formats that were not requested', async () => {
    const res = await scrape({ url: `${site.url}/article`, formats: ['links'] });
    expect(res.body.data.markdown).toBeUndefined();
    expect(res.body.data.html).toBeUndefined();
    expect(res.body.data.links.length).toBeGreaterThan(3);
  });

  it('takes screenshots in string and object form (PNG, JPEG with quality, full page), served by URL', async () => {
    // Stored by the service and linked; downloading needs no API key (the random name is the permission).
    const download = async (url: string) => {
      expect(url).toMatch(new RegExp(`^${apiUrl}/v2/media/[A-Za-z0-9_-]{43}\\.(png|jpg)$`));
      const res = await fetch(url);
      expect(res.status).toBe(200);
      return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const png = await scrape({ url: `${site.url}/article`, formats: ['screenshot'] });
    expect(png.status).toBe(200);
    const pngFile = await download(png.body.data.screenshot);
    expect(pngFile.type).toBe('image/png');
    expect(pngFile.bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const jpeg = await scrape({
      url: `${site.url}/article`,
      formats: [{ type: 'screenshot', fullPage: true, quality: 50, viewport: { width: 800, height: 600 } }],
    });
    expect(jpeg.status).toBe(200);
    const jpegFile = await download(jpeg.body.data.screenshot);
    expect(jpegFile.type).toBe('image/jpeg');
    expect(jpegFile.bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
  });
});

describe('options', () => {
  it('sends custom headers and Accept-Language from location', async () => {
    const res = await scrape({
      url: `${site.url}/echo-headers`,
      headers: { 'x-trawl-test': 'yes' },
      location: { country: 'DE', languages: ['de-DE'] },
    });
    expect(res.status).toBe(200);
    const echoed = JSON.parse(res.body.data.markdown.replace(/^```json\n|\n```$/g, ''));
    expect(echoed['x-trawl-test']).toBe('yes');
    expect(echoed['accept-language']).toMatch(/^de-DE/);
  });

  it('emulates a mobile device in the browser', async () => {
    const res = await scrape({ url: `${site.url}/echo-headers`, mobile: true });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toMatch(/Mobile/);
  });

  it('accepts proxy, storeInCache, maxAge, blockAds, origin and integration', async () => {
    const res = await scrape({
      url: `${site.url}/final`,
      proxy: 'auto',
      storeInCache: false,
      maxAge: 0,
      blockAds: true,
      origin: 'js-sdk@4.42.0',
      integration: 'test',
    });
    expect(res.status).toBe(200);
  });
});

describe('errors', () => {
  it('times out a slow page with 408 SCRAPE_TIMEOUT within the deadline', async () => {
    const started = Date.now();
    const res = await scrape({ url: `${site.url}/slow`, timeout: 2000 });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_TIMEOUT' });
    expect(elapsed).toBeLessThan(2000 + 5000);
  });

  it('rejects a waitFor longer than half the timeout', async () => {
    const res = await scrape({ url: `${site.url}/final`, waitFor: 20_000, timeout: 30_000 });
    expect(res.status).toBe(400);
    expect(res.body.details.some((d: { path: string[] }) => d.path.includes('waitFor'))).toBe(true);
  });

  it('answers schema failures with 400 and details', async () => {
    const res = await scrape({ url: `${site.url}/final`, formats: ['nonsense'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(Array.isArray(res.body.details)).toBe(true);
  });

  it('rejects unknown keys', async () => {
    const res = await scrape({ url: `${site.url}/final`, notAnOption: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/notAnOption|Unrecognized/i);
  });

  it.each([['ftp://example.com/file'], ['http://'], [''], [42]])('answers 400 Invalid URL for %j', async (url) => {
    const res = await scrape({ url });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid URL' });
  });

  it('answers malformed JSON with 400, not a crash', async () => {
    const res = await api('/v2/scrape', { method: 'POST', rawBody: '{"url": ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST_INVALID_JSON' });
  });

  it('answers an oversized body with 413', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site.url}/final`, headers: { big: 'x'.repeat(11 * 1024 * 1024) } } });
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const res = await api('/v2/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });

  it('answers a missing, malformed or unknown key with 401', async () => {
    for (const key of [null, '', 'not a key', 'fc-0000000000000000000000000000000000000000']) {
      const res = await api('/v2/scrape', { body: { url: `${site.url}/final` }, key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, code: 'UNAUTHORIZED', error: 'Unauthorized: Invalid token' });
    }
  });

  it('answers a target the worker cannot connect to with a clear error code', async () => {
    const res = await scrape({ url: 'http://127.0.0.1:1/', timeout: 5000 });
    expect(res.body.success).toBe(false);
    expect(res.body.code).toBe('SCRAPE_SITE_ERROR');
    expect(res.status).toBe(502);
  });
});

describe('health', () => {
  it('reports every dependency up', async () => {
    const res = await api('/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ database: { ok: true }, temporal: { ok: true }, workers: { ok: true } });
  });
});
