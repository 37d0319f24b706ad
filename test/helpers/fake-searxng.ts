/**
 * A SearXNG JSON API on 127.0.0.1 for search tests: `GET /search?q&format=json&pageno&categories`
 * answers ten results a page from fixed fixtures for general, news and images, and records every
 * request. `mode` scripts failures: a 500, a 403 (json not enabled), or slowness.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestUrl } from './request-url.js';

export interface FakeSearxng {
  url: string;
  requests: URLSearchParams[];
  mode: 'ok' | 'error' | 'forbidden' | 'slow';
  /** When set, the general results point at these URLs instead (one result each). */
  resultUrls?: string[];
  close(): Promise<void>;
}

const PER_PAGE = 10;
const TOTAL = 25;

function results(category: string, q: string) {
  return Array.from({ length: TOTAL }, (_, i) => {
    const n = i + 1;
    const base = { url: `https://${category}.example/${n}`, title: `${q} ${category} ${n}`, content: `About ${q}, result ${n}`, engine: 'fake' };
    if (category === 'news') return { ...base, publishedDate: new Date(Date.now() - n * 3_600_000).toISOString(), thumbnail: `https://img.example/news-${n}.jpg` };
    if (category === 'images') return { ...base, img_src: `https://img.example/${n}.png`, resolution: '640x480' };
    return base;
  });
}

export async function startFakeSearxng(): Promise<FakeSearxng> {
  const fake: FakeSearxng = { url: '', requests: [], mode: 'ok', close: async () => undefined };
  const server = http.createServer((req, res) => {
    const params = requestUrl(req)?.searchParams ?? new URLSearchParams();
    fake.requests.push(params);
    const reply = () => {
      if (fake.mode === 'error') return res.writeHead(500).end('boom');
      if (fake.mode === 'forbidden' || params.get('format') !== 'json') return res.writeHead(403).end('forbidden');
      const page = Number(params.get('pageno') ?? '1');
      const category = params.get('categories') ?? 'general';
      const all =
        fake.resultUrls && category === 'general'
          ? fake.resultUrls.map((url, i) => ({ url, title: `Result ${i + 1}`, content: `About result ${i + 1}`, engine: 'fake' }))
          : results(category, params.get('q') ?? '');
      const body = { query: params.get('q'), results: all.slice((page - 1) * PER_PAGE, page * PER_PAGE), unresponsive_engines: page === 1 ? [['slowengine', 'timeout']] : [] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (fake.mode === 'slow') setTimeout(reply, 5_000);
    else reply();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
