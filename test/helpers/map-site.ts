/**
 * A small web of sites for map tests, all on one HTTP server told apart by the Host header: both
 * engines resolve every `*.localhost` name to 127.0.0.1 (RFC 6761).
 *  - `site.localhost`: the site mapped. robots.txt disallows /private and names a sitemap index
 *    (not /sitemap.xml, which is 404) whose second child is itself an index. The home page links
 *    to pages the sitemaps do not list, to query and fragment variants, to a `www.` twin, to a
 *    subdomain, to another site, to an image and to a disallowed page.
 *  - `docs.site.localhost`: a subdomain, listed by the sitemap and linked from the home page.
 *  - `other.localhost`: another site, linked and listed but never part of a map.
 *  - `slow.localhost`: its robots.txt names a sitemap that answers only after 20 s.
 *  - `big.localhost`: a sitemap of BIG_SITE_PAGES pages, more than the default map limit.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MapFixtureSite {
  port: number;
  /** `http://<name>.localhost:<port>` without a trailing slash. */
  origin(name: 'site' | 'docs.site' | 'www.site' | 'other' | 'slow' | 'big'): string;
  close(): Promise<void>;
}

export const BIG_SITE_PAGES = 6000;

export const HOME_TITLE = 'Map Fixture Home';
export const HOME_DESCRIPTION = 'The home page of the map fixture';

interface Response {
  type: string;
  body: string;
}

function html(title: string, links: readonly string[], description?: string): Response {
  const meta = description ? `<meta name="description" content="${description}">` : '';
  const anchors = links.map((href) => `<a href="${href}">${href}</a>`).join('\n');
  return {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>${title}</title>${meta}</head><body><h1>${title}</h1>\n${anchors}\n</body></html>`,
  };
}

function urlset(urls: readonly string[]): Response {
  const entries = urls.map((url) => `<url><loc>${url}</loc></url>`).join('\n');
  return {
    type: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</urlset>`,
  };
}

function sitemapIndex(urls: readonly string[]): Response {
  const entries = urls.map((url) => `<sitemap><loc>${url}</loc></sitemap>`).join('\n');
  return {
    type: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</sitemapindex>`,
  };
}

function text(body: string): Response {
  return { type: 'text/plain', body };
}

function routes(origin: MapFixtureSite['origin']): Record<string, Record<string, Response>> {
  const site = origin('site');
  return {
    site: {
      '/robots.txt': text(`User-agent: *\nDisallow: /private\n\nSitemap: ${site}/sitemap-index.xml\n`),
      '/sitemap-index.xml': sitemapIndex([`${site}/sitemaps/pages.xml`, `${site}/sitemaps/nested-index.xml`]),
      '/sitemaps/nested-index.xml': sitemapIndex([`${site}/sitemaps/blog.xml`]),
      '/sitemaps/pages.xml': urlset([
        `${site}/`,
        `${site}/pricing`,
        `${site}/about?ref=sitemap`,
        `${site}/docs/intro`,
        `${site}/docs/api`,
        `${site}/sitemap-only-page`,
        `${site}/private/secret`,
        `${origin('docs.site')}/guide`,
        `${origin('other')}/from-sitemap`,
      ]),
      '/sitemaps/blog.xml': urlset([`${site}/blog/hello-world`, `${site}/blog/second-post`]),
      '/': html(
        HOME_TITLE,
        [
          '/about',
          '/about#team',
          '/about?utm_source=newsletter',
          '/products?id=1',
          '/products?id=2',
          '/link-only-page',
          '/docs/',
          `${origin('www.site')}/about`,
          `${origin('docs.site')}/reference`,
          `${origin('other')}/external`,
          'mailto:team@site.localhost',
          '/logo.png',
          '/private/hidden',
        ],
        HOME_DESCRIPTION,
      ),
      '/docs': html('Docs', ['/docs/intro', '/docs/api', '/pricing']),
      '/lonely/page': html('A page with no links', []),
    },
    'docs.site': {
      '/guide': html('Guide', []),
      '/reference': html('Reference', []),
    },
    other: {
      '/external': html('Elsewhere', []),
    },
    slow: {
      '/robots.txt': text(`User-agent: *\nAllow: /\n\nSitemap: ${origin('slow')}/slow-sitemap.xml\n`),
      '/': html('Slow sitemap site', ['/a', '/b']),
    },
    big: {
      '/sitemap.xml': urlset(Array.from({ length: BIG_SITE_PAGES }, (_, i) => `${origin('big')}/page/${i + 1}`)),
      '/': html('Big site', []),
    },
  };
}

export async function startMapSite(): Promise<MapFixtureSite> {
  const server = http.createServer((req, res) => {
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
    const name = hostname.replace(/^www\./, '').replace(/\.localhost$/, '');
    const path = (req.url ?? '/').split('?')[0]!;
    if (name === 'slow' && path === '/slow-sitemap.xml') {
      // Never answered (close() drops it): a map that waited for it would not end before its test timed out.
      return;
    }
    const page = table[name]?.[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': page.type });
    res.end(page.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const origin: MapFixtureSite['origin'] = (name) => `http://${name}.localhost:${port}`;
  const table = routes(origin);
  return {
    port,
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
