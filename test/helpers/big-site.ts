/**
 * A generated site of N small pages for scale and durability tests: page i links to pages
 * 2i+1 and 2i+2 (a binary tree, so discovery fans out fast) and back to the root. Counts every
 * request per path, so tests can prove no page was fetched more often than retries explain.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BigSite {
  url: string;
  pages: number;
  /** Requests per page path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startBigSite(pages: number, options: { delayMs?: number } = {}): Promise<BigSite> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    const i = match ? Number(match[1]) : -1;
    if (i < 0 || i >= pages) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>none</body></html>');
      return;
    }
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const children = [2 * i + 1, 2 * i + 2].filter((c) => c < pages);
    const body = `<!doctype html><html><head><title>Page ${i}</title></head><body><article><h1>Page ${i}</h1>
<p>Generated page number ${i} of ${pages}. It exists to be crawled exactly once, whatever happens to the workers.</p>
${children.map((c) => `<a href="/p/${c}">page ${c}</a>`).join(' ')} <a href="/p/0">home</a></article></body></html>`;
    const send = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (options.delayMs) {
      const timer = setTimeout(send, options.delayMs);
      res.on('close', () => clearTimeout(timer));
    } else {
      send();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/p/0`,
    pages,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
