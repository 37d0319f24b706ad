/**
 * A tiny HTTP server on 127.0.0.1 (port 0) serving fixture routes, plus fetch helpers shaped like
 * the injected fetch functions of scraper/discovery. `{{origin}}` in string bodies becomes the
 * server's own origin, so fixtures can hold absolute URLs.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/crawl/', import.meta.url));

export interface Route {
  status?: number;
  body: string | Buffer;
  contentType?: string;
  /** Send the body gzipped as a file (no Content-Encoding), like `sitemap.xml.gz`. */
  gzipFile?: boolean;
  /** Send the body with `Content-Encoding: gzip`, which fetch undoes transparently. */
  gzipEncoding?: boolean;
}

export interface FixtureServer {
  origin: string;
  /** Request paths in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export function fixture(relativePath: string): string {
  return readFileSync(join(FIXTURES, relativePath), 'utf8');
}

export async function startFixtureServer(routes: Record<string, Route>): Promise<FixtureServer> {
  const requests: string[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const route = routes[path];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let body = typeof route.body === 'string' ? Buffer.from(route.body.replaceAll('{{origin}}', origin)) : route.body;
    const headers: Record<string, string> = { 'content-type': route.contentType ?? 'application/xml' };
    if (route.gzipFile || route.gzipEncoding) body = gzipSync(body);
    if (route.gzipEncoding) headers['content-encoding'] = 'gzip';
    res.writeHead(route.status ?? 200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

export async function fetchBytes(url: string): Promise<{ status: number; body: Buffer; contentType: string }> {
  const response = await fetch(url);
  return {
    status: response.status,
    body: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get('content-type') ?? '',
  };
}

export async function fetchText(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}
