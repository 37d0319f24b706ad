/**
 * Fixture pages served on 127.0.0.1 for end-to-end scrape tests. Each route exists to prove one
 * behaviour; the tests name the route they rely on.
 */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from './self-signed.js';

export interface FixtureSite {
  url: string;
  httpsUrl: string;
  /** Paths requested so far, in order (for asserting what the scraper fetched). */
  requests: string[];
  close(): Promise<void>;
}

const ARTICLE_TEXT = [
  'Durable crawling means a crash never loses a page that was already fetched.',
  'Each page is scraped by an activity whose result is stored before the workflow moves on.',
  'When a worker dies, Temporal notices the missing heartbeat and hands the page to another worker.',
];

const pages: Record<string, { type: string; body: string | Buffer; status?: number }> = {
  '/article': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><title>Durable Crawling</title>
<meta name="description" content="How durable crawls work">
<meta name="keywords" content="crawl, temporal">
<meta property="og:title" content="Durable Crawling (OG)">
<meta property="og:image" content="/img/og.png">
<meta name="author" content="Trawl Team">
<meta name="custom-tag" content="one"><meta name="custom-tag" content="two">
<link rel="icon" href="/favicon.ico">
</head><body>
<header class="site-header"><a href="/">Home</a> SITE HEADER BANNER</header>
<nav><ul><li><a href="/docs">Docs NAVLINK</a></li><li><a href="/pricing">Pricing NAVLINK</a></li></ul></nav>
<aside class="sidebar">SIDEBAR RELATED POSTS <a href="/related">Related</a></aside>
<main><article>
<h1>Durable Crawling</h1>
${ARTICLE_TEXT.map((p) => `<p>${p} <a href="/more/${p.length}">read more</a></p>`).join('\n')}
<p><img src="/img/diagram.png" alt="diagram"></p>
<table><thead><tr><th>Engine</th><th>Cost</th></tr></thead><tbody><tr><td>http</td><td>1 ms</td></tr><tr><td>browser</td><td>180 ms</td></tr></tbody></table>
</article></main>
<div class="ad ads">ADVERTISEMENT BUY NOW</div>
<footer>FOOTER COPYRIGHT 2026</footer>
</body></html>`,
  },
  '/js-rendered': {
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html><head><title>Loading…</title></head><body><div id="root"></div>
<script>
setTimeout(() => {
  document.title = 'Rendered by JavaScript';
  document.getElementById('root').innerHTML =
    '<h1>Client Side Heading</h1><p>This paragraph only exists after JavaScript runs in a real browser engine.</p>';
}, 50);
</script></body></html>`,
  },
  '/shift-jis': {
    type: 'text/html; charset=Shift_JIS',
    body: Buffer.from(
      // "日本語のページ" / "こんにちは世界" in Shift_JIS
      '<html><head><title>\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x79\x81\x5b\x83\x57</title></head><body><p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x90\xa2\x8a\x45</p></body></html>',
      'latin1',
    ),
  },
  '/data.json': { type: 'application/json', body: JSON.stringify({ name: 'trawl', pages: [1, 2, 3] }) },
  '/base64-images': {
    type: 'text/html; charset=utf-8',
    body: `<html><head><title>Images</title></head><body><article><h1>Images</h1>
<p>A pixel follows this sentence so there is enough text for the page to count as content.</p>
<img alt="tiny pixel" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==">
<img alt="remote" src="/img/remote.png"></article></body></html>`,
  },
  '/final': {
    type: 'text/html; charset=utf-8',
    body: '<html><head><title>Final Page</title></head><body><p>You followed the redirects all the way here.</p></body></html>',
  },
  '/not-found': {
    type: 'text/html; charset=utf-8',
    status: 404,
    body: '<html><head><title>Missing</title></head><body><p>Nothing here.</p></body></html>',
  },
};

export async function startFixtureSite(): Promise<FixtureSite> {
  const requests: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(path);
    if (path === '/redirect-1') return redirect(res, '/redirect-2');
    if (path === '/redirect-2') return redirect(res, '/final');
    if (path === '/slow') {
      // Answers only after 20 s: longer than any timeout the tests use.
      const timer = setTimeout(() => res.end('<html><body>too late</body></html>'), 20_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/echo-headers') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.headers));
      return;
    }
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.type });
    res.end(page.body);
  };
  const plain = http.createServer(handler);
  const secure = https.createServer(selfSignedCert(), handler);
  plain.listen(0, '127.0.0.1');
  secure.listen(0, '127.0.0.1');
  await Promise.all([once(plain, 'listening'), once(secure, 'listening')]);
  const port = (plain.address() as AddressInfo).port;
  const httpsPort = (secure.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    httpsUrl: `https://127.0.0.1:${httpsPort}`,
    requests,
    close: async () => {
      plain.closeAllConnections();
      secure.closeAllConnections();
      await Promise.all([new Promise((r) => plain.close(r)), new Promise((r) => secure.close(r))]);
    },
  };
}

function redirect(res: http.ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

export const ARTICLE_PARAGRAPHS = ARTICLE_TEXT;
