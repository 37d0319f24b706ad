/**
 * Serves the synthetic bench site on 127.0.0.1:
 *
 *   /static/, /static/articles/<i>   article pages as plain HTML
 *   /js/, /js/articles/<i>           the same articles, rendered by a script in the page
 *   /assets/img/<n>.png              a small image the articles embed
 *   /robots.txt, /sitemap.xml        a sitemap index of /static/sitemap.xml and /js/sitemap.xml
 *
 * Generating a page costs about 2 ms of CPU, which would compete with the crawler under test, so
 * the variants a scenario compares crawlers on are rendered once at start and served from memory
 * (2,000 pages are about 80 MB). Other pages are generated on request, which keeps a 10,000-page
 * site from costing the bench process memory that would blur its own figures.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pagePath, renderPage, type SiteShape, type SiteVariant } from './article.js';

export interface BenchSite {
  origin: string;
  shape: SiteShape;
  url(variant: SiteVariant, index: number): string;
  /** Article page requests served so far. */
  pageRequests(): number;
  close(): Promise<void>;
}

export const DEFAULT_SITE_SEED = 20_260_601;

// A 1×1 transparent PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

const ARTICLE_PATH = /^\/(static|js)\/(?:articles\/(\d+))?$/;

export interface BenchSiteOptions {
  pages: number;
  /** @default DEFAULT_SITE_SEED */
  seed?: number;
  /** Variants rendered up front. @default [] (every page generated on request) */
  prerender?: readonly SiteVariant[];
}

export async function startBenchSite(options: BenchSiteOptions): Promise<BenchSite> {
  const shape: SiteShape = { pages: options.pages, seed: options.seed ?? DEFAULT_SITE_SEED };
  let origin = '';
  let pageRequests = 0;
  const rendered = new Map<SiteVariant, Buffer[]>();
  for (const variant of options.prerender ?? []) {
    rendered.set(variant, Array.from({ length: shape.pages }, (_, i) => Buffer.from(renderPage(shape, variant, i))));
  }
  const page = (variant: SiteVariant, index: number) => rendered.get(variant)?.[index] ?? renderPage(shape, variant, index);

  const sitemap = (variant: SiteVariant) => {
    const urls = Array.from({ length: shape.pages }, (_, i) => `<url><loc>${origin}${pagePath(variant, i)}</loc></url>`);
    return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('\n')}</urlset>`;
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://bench').pathname;
    const send = (status: number, type: string, body: string | Buffer, extra: http.OutgoingHttpHeaders = {}) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
      res.end(body);
    };
    const match = ARTICLE_PATH.exec(path);
    // `/static/` is page 0; `/static/articles/<i>` the others, spelled canonically.
    const index = match?.[2] === undefined ? 0 : Number(match[2]);
    if (match && index < shape.pages && (match[2] === undefined || (index > 0 && String(index) === match[2]))) {
      pageRequests++;
      return send(200, 'text/html; charset=utf-8', page(match[1] as SiteVariant, index));
    }
    if (path.startsWith('/assets/img/')) return send(200, 'image/png', PNG, { 'cache-control': 'public, max-age=3600' });
    if (path === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      const children = ['static', 'js'].map((v) => `<sitemap><loc>${origin}/${v}/sitemap.xml</loc></sitemap>`).join('');
      return send(
        200,
        'application/xml',
        `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children}</sitemapindex>`,
      );
    }
    if (path === '/static/sitemap.xml' || path === '/js/sitemap.xml') {
      return send(200, 'application/xml', sitemap(path.startsWith('/js') ? 'js' : 'static'));
    }
    send(404, 'text/html; charset=utf-8', '<!doctype html><html><body><h1>Not found</h1></body></html>');
  });
  // Crawlers keep many connections open at once; Node's defaults would close idle ones early.
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    shape,
    url: (variant, index) => `${origin}${pagePath(variant, index)}`,
    pageRequests: () => pageRequests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
