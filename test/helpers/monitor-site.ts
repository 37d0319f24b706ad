/**
 * A site whose pages a test edits between a monitor's checks: bodies are set per path, a page can
 * be made slow, and every page answers conditional requests with its ETag (counting the 304s).
 * `noisy` pages render a fresh timestamp, visitor count, rotating ad and session token each time.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestUrl } from './request-url.js';

export interface MonitorSite {
  origin: string;
  url(path: string): string;
  /** Sets a page's body (inside <article>); undefined makes it 404. */
  set(path: string, body: string | undefined): void;
  /** Holds the page's answers back this long. */
  slow(path: string, ms: number): void;
  /** Answers 304 to a matching If-None-Match (the default) or always 200. */
  conditional(enabled: boolean): void;
  notModifiedCount(): number;
  requests(path: string): number;
  close(): Promise<void>;
}

const ADS = ['Save 20% on smart thermostats', 'Weekend in Rome: hotels from €59', 'Noise-cancelling headphones, half price'];

export async function startMonitorSite(): Promise<MonitorSite> {
  const bodies = new Map<string, string>();
  const delays = new Map<string, number>();
  const hits = new Map<string, number>();
  let conditional = true;
  let notModified = 0;
  let loads = 0;
  const server = http.createServer((req, res) => {
    const path = requestUrl(req)?.pathname;
    if (path === undefined) return void res.writeHead(400).end();
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = () => {
      let body = bodies.get(path);
      if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
      if (body.includes('{{noise}}')) {
        loads += 1;
        const noise =
          `<p>Last updated: ${new Date(Date.UTC(2026, 10, 26, 10, loads)).toISOString()}</p>` +
          `<p>${1000 + loads * 37} views · ${80 + loads} people online</p>` +
          `<p>Sponsored: ${ADS[loads % ADS.length]}</p>` +
          `<p><a href="/logout?sid=${createHash('sha1').update(String(loads)).digest('hex')}">Logout</a></p>`;
        body = body.replace('{{noise}}', noise);
      }
      const html = `<html><head><title>${path}</title></head><body><article>${body}</article></body></html>`;
      const etag = `"${createHash('sha1').update(html).digest('hex').slice(0, 16)}"`;
      if (conditional && req.headers['if-none-match'] === etag) {
        notModified += 1;
        return void res.writeHead(304, { etag }).end();
      }
      res.writeHead(200, { 'content-type': 'text/html', etag }).end(html);
    };
    const delay = delays.get(path) ?? 0;
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    set: (path, body) => (body === undefined ? bodies.delete(path) : bodies.set(path, body)),
    slow: (path, ms) => delays.set(path, ms),
    conditional: (enabled) => (conditional = enabled),
    notModifiedCount: () => notModified,
    requests: (path) => hits.get(path) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
