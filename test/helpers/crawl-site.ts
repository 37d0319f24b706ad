/**
 * A small site for crawl tests, served on 127.0.0.1 and addressed by `*.localhost` names so
 * subdomains and other sites are real hosts (both engines resolve `*.localhost` to loopback).
 *
 *   site.localhost          the site being crawled
 *   www.site.localhost      its www twin (same pages)
 *   blog.site.localhost     a subdomain
 *   other.localhost         another site
 *
 * Every route exists for one crawl rule; the page map below says which.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestUrl } from './request-url.js';

export interface CrawlSite {
  port: number;
  /** http://site.localhost:PORT */
  origin: string;
  url(path: string, host?: string): string;
  /** Page requests (not robots.txt or sitemaps) as `host path`, in arrival order. */
  requests: { host: string; path: string; at: number }[];
  /** Most page requests that were in flight at once. */
  peakInFlight(): number;
  reset(): void;
  close(): Promise<void>;
}

/** Pages every host serves, by path: title and links (paths or absolute URLs with {HOST} slots). */
const SITE_PAGES: Record<string, { title: string; links: string[]; delayMs?: number }> = {
  '/': {
    title: 'Home',
    links: [
      '/docs/a',
      '/docs/b',
      '/blog/post-1',
      '/private/secret', // robots.txt disallows /private
      '/anchors#section-1', // reachable only through #anchors
      '/anchors#section-2',
      '/query?b=2&a=1', // two spellings of one URL
      '/query?a=1&b=2',
      '/broken', // always 500
      'http://blog.site.localhost:{PORT}/', // subdomain
      'http://other.localhost:{PORT}/', // another site
      'mailto:someone@example.com',
      '/image.png',
    ],
  },
  '/docs/a': { title: 'Docs A', links: ['/docs/b', '/docs/a#top', '/docs/a?utm_source=newsletter', '/docs/a/deeper'] },
  '/docs/a/deeper': { title: 'Docs A deeper', links: ['/docs/a'] },
  '/docs/b': { title: 'Docs B', links: ['/docs/c', 'http://www.site.localhost:{PORT}/docs/a'] },
  '/docs/c': { title: 'Docs C', links: ['/docs/d'] },
  '/docs/d': { title: 'Docs D', links: [] },
  '/blog/post-1': { title: 'Blog post 1', links: ['/'] },
  '/private/secret': { title: 'Private', links: [] },
  '/anchors': { title: 'Anchors', links: ['#section-1', '#section-2'] },
  '/query': { title: 'Query page', links: [] },
  '/only-in-sitemap': { title: 'Only in the sitemap', links: [] },
};

const SLOW_PAGES = 12;

export async function startCrawlSite(): Promise<CrawlSite> {
  const requests: CrawlSite['requests'] = [];
  let inFlight = 0;
  let peak = 0;
  let port = 0;

  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const url = requestUrl(req, host);
    if (!url) return send(400, 'text/plain', 'bad request');
    const path = url.pathname;
    if (path === '/robots.txt') {
      return send(
        200,
        'text/plain',
        `User-agent: *\nDisallow: /private\n\nSitemap: http://site.localhost:${port}/sitemap-index.xml\n`,
      );
    }
    if (path === '/sitemap-index.xml' || path === '/sitemaps/nested-index.xml') {
      const children =
        path === '/sitemap-index.xml'
          ? ['/sitemaps/pages.xml', '/sitemaps/nested-index.xml']
          : ['/sitemaps/deep.xml'];
      return send(
        200,
        'application/xml',
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${children
          .map((c) => `<sitemap><loc>http://site.localhost:${port}${c}</loc></sitemap>`)
          .join('')}</sitemapindex>`,
      );
    }
    if (path === '/sitemaps/pages.xml' || path === '/sitemaps/deep.xml') {
      const locs = path === '/sitemaps/pages.xml' ? ['/', '/docs/a'] : ['/only-in-sitemap'];
      return send(
        200,
        'application/xml',
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs
          .map((l) => `<url><loc>http://site.localhost:${port}${l}</loc></url>`)
          .join('')}</urlset>`,
      );
    }

    requests.push({ host, path: `${path}${url.search}`, at: Date.now() });
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    const done = () => {
      inFlight -= 1;
    };
    res.on('close', done);

    if (path === '/broken') return send(500, 'text/html', '<html><body>Internal error, always.</body></html>');
    if (path === '/slow-index') {
      const links = Array.from({ length: SLOW_PAGES }, (_, i) => `<a href="/slow/${i}">slow ${i}</a>`).join(' ');
      return send(200, 'text/html', page('Slow index', links));
    }
    if (path.startsWith('/slow/')) {
      const timer = setTimeout(() => send(200, 'text/html', page(`Slow ${path}`, '<a href="/slow-index">back</a>')), 300);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    const spec = SITE_PAGES[path];
    if (!spec) return send(404, 'text/html', page('Not found', ''));
    const links = spec.links
      .map((l) => l.replace('{PORT}', String(port)))
      .map((l) => `<a href="${l}">${l}</a>`)
      .join('\n');
    const title = host === 'site.localhost' || host === 'www.site.localhost' ? spec.title : `${spec.title} on ${host}`;
    send(200, 'text/html; charset=utf-8', page(title, links));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  const origin = `http://site.localhost:${port}`;

  return {
    port,
    origin,
    url: (path, host = 'site.localhost') => `http://${host}:${port}${path}`,
    requests,
    peakInFlight: () => peak,
    reset: () => {
      requests.length = 0;
      peak = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

function page(title: string, links: string) {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>
<p>This is the ${title} page of the crawl fixture site. It has enough words to count as content.</p>
<nav>${links}</nav></main></body></html>`;
}
