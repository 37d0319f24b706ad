/** What Chromium sends its proxy, for the tests of the guard proxy's listeners. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** One plain-HTTP request in absolute form, as Chromium sends it to its proxy. */
export function viaProxy(proxyUrl: string, target: string): Promise<{ status: number; body: string; headers: IncomingMessage['headers'] }> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: target, headers: { host: new URL(target).host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** The answer Chromium would get to a CONNECT, and the socket when it is 200. */
export function connectVia(
  proxyUrl: string,
  authority: string,
): Promise<{ status: number; headers: IncomingMessage['headers']; socket: Socket }> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, method: 'CONNECT', path: authority });
    req.once('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
    req.once('error', reject);
    req.end();
  });
}
