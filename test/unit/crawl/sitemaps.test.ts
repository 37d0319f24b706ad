import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRobots } from '../../../scraper/discovery/robots.js';
import { discoverSitemapUrls, type DiscoverSitemapOptions } from '../../../scraper/discovery/sitemaps.js';
import { fetchBytes, fetchText, fixture, startFixtureServer, type FixtureServer, type Route } from './fixture-server.js';

const servers: FixtureServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(routes: Record<string, Route>): Promise<FixtureServer> {
  const server = await startFixtureServer(routes);
  servers.push(server);
  return server;
}

function options(overrides: Partial<DiscoverSitemapOptions> = {}): DiscoverSitemapOptions {
  return { maxUrls: 1000, deadline: Date.now() + 30_000, ...overrides };
}

const SITE_ROUTES: Record<string, Route> = {
  '/robots.txt': { body: fixture('sitemaps/robots.txt'), contentType: 'text/plain' },
  '/sitemaps/sitemap-index.xml': { body: fixture('sitemaps/sitemap-index.xml') },
  '/sitemaps/pages-a.xml': { body: fixture('sitemaps/pages-a.xml') },
  '/sitemaps/pages-b.xml.gz': { body: fixture('sitemaps/pages-b.xml'), contentType: 'application/gzip', gzipFile: true },
};

function urlset(origin: string, paths: string[]): string {
  const entries = paths.map((path) => `<url><loc>${origin}${path}</loc></url>`).join('\n');
  return `<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</urlset>\n`;
}

function sitemapIndex(children: string[]): string {
  const entries = children.map((child) => `<sitemap><loc>{{origin}}${child}</loc></sitemap>`).join('\n');
  return `<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</sitemapindex>`;
}

describe('discoverSitemapUrls', () => {
  it('follows robots Sitemap: → index → two children (one gzipped) → URLs', async () => {
    const server = await serve(SITE_ROUTES);
    const o = server.origin;
    const robots = await loadRobots(o, fetchText, 'TrawlBot');
    const result = await discoverSitemapUrls(`${o}/`, robots.sitemaps(), fetchBytes, options());

    expect(result.urls).toEqual([
      { url: `${o}/`, lastmod: '2025-02-03' },
      { url: `${o}/docs/intro` },
      { url: `${o}/search?q=a&page=2` },
      { url: `${o}/blog/one`, lastmod: '2024-12-31T10:00:00+00:00' },
      { url: `${o}/blog/two?utm=x&ref=y` },
    ]);
    expect(result.sitemapsRead).toEqual([
      `${o}/sitemaps/sitemap-index.xml`,
      `${o}/sitemaps/pages-a.xml`,
      `${o}/sitemaps/pages-b.xml.gz`,
    ]);
    expect(result.truncated).toBe(false);
    // Each sitemap fetched once although the index lists pages-a twice; /sitemap.xml was tried.
    expect(server.requests.filter((path) => path === '/sitemaps/pages-a.xml')).toHaveLength(1);
    expect(server.requests).toContain('/sitemap.xml');
  });

  it('reads <origin>/sitemap.xml without robots.txt lines', async () => {
    const server = await serve({ '/sitemap.xml': { body: urlset('{{origin}}', ['/a', '/b']) } });
    const result = await discoverSitemapUrls(`${server.origin}/docs/start`, [], fetchBytes, options());
    expect(result.urls.map(({ url }) => url)).toEqual([`${server.origin}/a`, `${server.origin}/b`]);
    expect(result.sitemapsRead).toEqual([`${server.origin}/sitemap.xml`]);
  });

  it('reads the start URL when it is a sitemap', async () => {
    const server = await serve({ '/custom/map.xml': { body: urlset('{{origin}}', ['/x']) } });
    const result = await discoverSitemapUrls(`${server.origin}/custom/map.xml`, [], fetchBytes, options());
    expect(result.urls).toEqual([{ url: `${server.origin}/x` }]);
    expect(server.requests[0]).toBe('/custom/map.xml');
  });

  it('reads a plain-text sitemap', async () => {
    const server = await serve({ '/sitemap.txt': { body: fixture('sitemaps/plain.txt'), contentType: 'text/plain' } });
    const result = await discoverSitemapUrls(`${server.origin}/`, [`${server.origin}/sitemap.txt`], fetchBytes, options());
    expect(result.urls.map(({ url }) => url)).toEqual([
      `${server.origin}/text/one`,
      `${server.origin}/text/two`,
      `${server.origin}/text/three`,
    ]);
    expect(result.sitemapsRead).toEqual([`${server.origin}/sitemap.txt`]);
  });

  it('reads a .xml.gz that the server already decoded with Content-Encoding', async () => {
    const server = await serve({
      '/s.xml.gz': { body: urlset('{{origin}}', ['/enc']), gzipEncoding: true },
    });
    const result = await discoverSitemapUrls(`${server.origin}/`, [`${server.origin}/s.xml.gz`], fetchBytes, options());
    expect(result.urls).toEqual([{ url: `${server.origin}/enc` }]);
  });

  it('stops at maxUrls and says truncated', async () => {
    const server = await serve(SITE_ROUTES);
    const robots = await loadRobots(server.origin, fetchText, 'TrawlBot');
    const result = await discoverSitemapUrls(`${server.origin}/`, robots.sitemaps(), fetchBytes, options({ maxUrls: 2 }));
    expect(result.urls.map(({ url }) => url)).toEqual([`${server.origin}/`, `${server.origin}/docs/intro`]);
    expect(result.truncated).toBe(true);
    // The budget ran out in pages-a, so the gzipped child was never fetched.
    expect(server.requests).not.toContain('/sitemaps/pages-b.xml.gz');
  });

  it('is not truncated when maxUrls equals the number of URLs', async () => {
    const server = await serve(SITE_ROUTES);
    const robots = await loadRobots(server.origin, fetchText, 'TrawlBot');
    const result = await discoverSitemapUrls(`${server.origin}/`, robots.sitemaps(), fetchBytes, options({ maxUrls: 5 }));
    expect(result.urls).toHaveLength(5);
    expect(result.truncated).toBe(false);
  });

  it('reads each sitemap once even when indexes form a cycle', async () => {
    const server = await serve({
      '/sitemap.xml': { body: sitemapIndex(['/sitemap.xml', '/child.xml']) },
      '/child.xml': { body: sitemapIndex(['/sitemap.xml', '/leaf.xml']) },
      '/leaf.xml': { body: urlset('{{origin}}', ['/leaf']) },
    });
    const result = await discoverSitemapUrls(`${server.origin}/`, [], fetchBytes, options());
    expect(result.urls).toEqual([{ url: `${server.origin}/leaf` }]);
    expect(server.requests.filter((path) => path === '/sitemap.xml')).toHaveLength(1);
    expect(result.truncated).toBe(false);
  });

  it('does not follow indexes nested deeper than maxDepth', async () => {
    const server = await serve({
      '/sitemap.xml': { body: sitemapIndex(['/level1.xml']) },
      '/level1.xml': { body: sitemapIndex(['/level2.xml']) },
      '/level2.xml': { body: urlset('{{origin}}', ['/deep']) },
    });
    const shallow = await discoverSitemapUrls(`${server.origin}/`, [], fetchBytes, options({ maxDepth: 1 }));
    expect(shallow.urls).toEqual([]);
    expect(shallow.truncated).toBe(true);
    expect(server.requests).not.toContain('/level2.xml');
    const deep = await discoverSitemapUrls(`${server.origin}/`, [], fetchBytes, options({ maxDepth: 2 }));
    expect(deep.urls).toEqual([{ url: `${server.origin}/deep` }]);
  });

  it('caps decompressed bytes of a gzip bomb and keeps what it read', async () => {
    const paths = Array.from({ length: 20_000 }, (_, i) => `/p/${i}`);
    const server = await serve({
      '/big.xml.gz': { body: urlset('{{origin}}', paths), contentType: 'application/gzip', gzipFile: true },
    });
    const result = await discoverSitemapUrls(
      `${server.origin}/`,
      [`${server.origin}/big.xml.gz`],
      fetchBytes,
      options({ maxUrls: 100_000, maxBytes: 64 * 1024 }),
    );
    expect(result.truncated).toBe(true);
    expect(result.urls.length).toBeGreaterThan(100);
    expect(result.urls.length).toBeLessThan(paths.length);
  });

  it('survives a corrupt gzip file', async () => {
    const good = gzipSync(Buffer.from(urlset('http://example.com', ['/ok'])));
    const corrupt = Buffer.concat([good.subarray(0, 20), randomBytes(200)]);
    const server = await serve({ '/bad.xml.gz': { body: corrupt, contentType: 'application/gzip' } });
    const result = await discoverSitemapUrls(`${server.origin}/`, [`${server.origin}/bad.xml.gz`], fetchBytes, options());
    expect(result.truncated).toBe(true);
    expect(result.sitemapsRead).toEqual([]);
  });

  it('does not count a soft-404 HTML page or a 404 as a sitemap', async () => {
    const server = await serve({
      '/sitemap.xml': { body: '<!doctype html><html><body><a href="/x">x</a></body></html>', contentType: 'text/html' },
    });
    const result = await discoverSitemapUrls(`${server.origin}/`, [`${server.origin}/missing.xml`], fetchBytes, options());
    expect(result).toEqual({ urls: [], sitemapsRead: [], truncated: false });
  });

  it('tolerates unescaped ampersands and skips non-http locations', async () => {
    const server = await serve({
      '/sitemap.xml': {
        body: `<urlset><url><loc>{{origin}}/a?x=1&y=2</loc></url><url><loc>mailto:x@example.com</loc></url><url><loc>{{origin}}/b#frag</loc></url></urlset>`,
      },
    });
    const result = await discoverSitemapUrls(`${server.origin}/`, [], fetchBytes, options());
    expect(result.urls).toEqual([{ url: `${server.origin}/a?x=1&y=2` }, { url: `${server.origin}/b` }]);
  });

  it('returns at once, truncated, when the deadline has passed', async () => {
    const server = await serve(SITE_ROUTES);
    const result = await discoverSitemapUrls(`${server.origin}/`, [], fetchBytes, options({ deadline: Date.now() - 1 }));
    expect(result).toEqual({ urls: [], sitemapsRead: [], truncated: true });
    expect(server.requests).toEqual([]);
  });

  it('stops waiting for a fetch at the deadline', async () => {
    // The fetch never settles: only the deadline can end the discovery before the test times out.
    const never = () => new Promise<undefined>(() => undefined);
    const result = await discoverSitemapUrls('https://example.com/', [], never, options({ deadline: Date.now() + 200 }));
    expect(result.truncated).toBe(true);
  });

  it('rejects an invalid start URL with INVALID_URL', async () => {
    await expect(discoverSitemapUrls('nope', [], fetchBytes, options())).rejects.toMatchObject({ code: 'INVALID_URL' });
  });

  it('treats a fetch that throws synchronously as a missing sitemap', async () => {
    const throwing = (): Promise<undefined> => {
      throw new Error('blocked by SSRF guard');
    };
    const result = await discoverSitemapUrls('https://example.com/', [], throwing, options());
    expect(result).toEqual({ urls: [], sitemapsRead: [], truncated: false });
  });

  it('treats a failing fetch as a missing sitemap', async () => {
    const failing = () => Promise.reject(new Error('ECONNRESET'));
    const result = await discoverSitemapUrls('https://example.com/', ['https://example.com/s.xml'], failing, options());
    expect(result).toEqual({ urls: [], sitemapsRead: [], truncated: false });
  });
});
