/** A tiny site from a path → body map on 127.0.0.1, for tests whose pages say exactly what they need. */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestUrl } from './request-url.js';

export interface PageServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  close(): Promise<void>;
}

/** Each body is wrapped in a minimal HTML document titled `title` (or the path); unknown paths are 404. */
export async function startPageServer(pages: Record<string, string>, title?: string): Promise<PageServer> {
  const server = http.createServer((req, res) => {
    const path = requestUrl(req)?.pathname;
    const body = path === undefined ? undefined : pages[path];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${title ?? path}</title></head><body><article>${body}</article></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A site of fixed responses by path (query included), each with its content type; unknown paths are 404. */
export async function startFileServer(routes: Record<string, { type: string; body: Buffer | string }>): Promise<PageServer> {
  const server = http.createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (!route) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': route.type }).end(route.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
