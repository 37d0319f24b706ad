// The site `npm run test:docker` scrapes and crawls, served from its own container on the compose
// network: PAGES pages, each linking to the next three, each answered after DELAY_MS so a crawl
// lasts long enough to restart the workers in the middle of it.
import { createServer } from 'node:http';

const PAGES = 40;
const DELAY_MS = 400;

createServer((req, res) => {
  const match = /^\/p\/(\d+)$/.exec(req.url ?? '');
  const n = match ? Number(match[1]) : -1;
  if (n < 0 || n >= PAGES) {
    res.writeHead(404).end('not found');
    return;
  }
  const links = [1, 2, 3].map((d) => n + d).filter((m) => m < PAGES).map((m) => `<li><a href="/p/${m}">Page ${m}</a></li>`);
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>
<p>This is page ${n} of the Docker fixture site, with enough words to be its main content.</p><ul>${links.join('')}</ul></main></body></html>`);
  }, DELAY_MS);
}).listen(8080, '0.0.0.0');
