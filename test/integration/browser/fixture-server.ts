/**
 * Pages for the browser tests, served over HTTP and self-signed HTTPS on 127.0.0.1. Each route
 * exists to prove one behaviour of the browser pool or engine.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../../helpers/self-signed.js';

export interface SeenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface FixtureServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `https://127.0.0.1:PORT`, self-signed */
  httpsUrl: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A minimal valid PDF; the tests compare the bytes the engine returns with these. */
export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** A 1×1 PNG. */
export const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const html = (body: string, head = ''): string => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
}

const routes: Record<string, Handler> = {
  // Content exists only after a fetch that starts once `load` has fired.
  '/js-after-load': (_req, res) =>
    send(
      res,
      200,
      'text/html; charset=utf-8',
      html(
        '<div id="root">loading</div>',
        `<script>addEventListener('load', () => fetch('/api/data').then((r) => r.json()).then((d) => {
          document.getElementById('root').innerHTML = '<p id="data">Rendered after load: ' + d.value + '</p>';
        }));</script>`,
      ),
    ),
  // The fetch starts on a timer `?delay=` ms (30 by default) after `load`, when the network has
  // been quiet since the image `load` waited for.
  '/js-timer-after-load': (req, res) =>
    send(
      res,
      200,
      'text/html; charset=utf-8',
      html(
        '<div id="root">loading</div><img src="/png">',
        `<script>addEventListener('load', () => setTimeout(() => fetch('/api/data').then((r) => r.json()).then((d) => {
          document.getElementById('root').innerHTML = '<p id="data">Rendered on a timer: ' + d.value + '</p>';
        }), ${Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('delay') ?? 30)}));</script>`,
      ),
    ),
  // Two timers in a row after `load` (40 ms each), and only the second one fetches.
  '/js-timer-chain': (_req, res) =>
    send(
      res,
      200,
      'text/html; charset=utf-8',
      html(
        '<div id="root">loading</div><img src="/png">',
        `<script>addEventListener('load', () => setTimeout(() => setTimeout(() => fetch('/api/data').then((r) => r.json()).then((d) => {
          document.getElementById('root').innerHTML = '<p id="data">Rendered after two timers: ' + d.value + '</p>';
        }), 40), 40));</script>`,
      ),
    ),
  // A chain of fetches: the second starts as the first one's body is read, after the settle's minimum.
  '/js-fetch-chain': (_req, res) =>
    send(
      res,
      200,
      'text/html; charset=utf-8',
      html(
        '<div id="root">loading</div>',
        `<script>addEventListener('load', () => fetch('/api/step').then((r) => r.json()).then((step) => fetch(step.next))
          .then((r) => r.json()).then((d) => {
            document.getElementById('root').innerHTML = '<p id="data">Rendered after a chain: ' + d.value + '</p>';
          }));</script>`,
      ),
    ),
  '/api/step': (_req, res) => {
    setTimeout(() => send(res, 200, 'application/json', JSON.stringify({ next: '/api/data' })), 100);
  },
  '/api/data': (_req, res) => {
    setTimeout(() => send(res, 200, 'application/json', JSON.stringify({ value: 42 })), 300);
  },
  '/missing': (_req, res) => send(res, 404, 'text/html', html('<h1>Nothing here</h1>')),
  '/redirect': (_req, res) => send(res, 302, 'text/plain', '', { location: '/final' }),
  '/final': (_req, res) => send(res, 200, 'text/html', html('<h1>Final page</h1>'), { 'x-fixture': 'final' }),
  '/js-redirect': (_req, res) =>
    send(res, 200, 'text/html', html('<p>moving</p>', `<script>addEventListener('load', () => setTimeout(() => { location.href = '/final'; }, 20));</script>`)),
  '/tall': (_req, res) =>
    send(res, 200, 'text/html', html('<div style="height:3000px;background:linear-gradient(#fff,#036)">tall</div>', '<style>body{margin:0}</style>')),
  // What the page's environment looks like from inside, plus the Accept-Language the server saw.
  '/environment': (req, res) =>
    send(
      res,
      200,
      'text/html',
      html(
        `<p id="accept-language">${escapeHtml(String(req.headers['accept-language'] ?? ''))}</p>
         <p id="header-ua">${escapeHtml(String(req.headers['user-agent'] ?? ''))}</p>
         <p id="custom">${escapeHtml(String(req.headers['x-custom'] ?? ''))}</p>
         <p id="sec-ch-ua">${escapeHtml(String(req.headers['sec-ch-ua'] ?? ''))}</p>
         <p id="env"></p>`,
        `<meta name="viewport" content="width=device-width, initial-scale=1">
         <script>addEventListener('DOMContentLoaded', () => {
          document.getElementById('env').textContent = JSON.stringify({
            ua: navigator.userAgent, width: innerWidth, language: navigator.language,
            timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, touch: navigator.maxTouchPoints,
            webdriver: navigator.webdriver, plugins: navigator.plugins.length, chrome: typeof window.chrome,
          });
        });</script>`,
      ),
    ),
  // Appears long after load, with no network activity to announce it.
  '/late': (_req, res) =>
    send(res, 200, 'text/html', html('<p id="late">not yet</p>', `<script>setTimeout(() => { document.getElementById('late').textContent = 'LATE CONTENT'; }, 1200);</script>`)),
  // The document arrives but `load` never fires: its image never answers.
  '/never-loads': (_req, res) => send(res, 200, 'text/html', html('<p>stuck</p><img src="/hang">')),
  '/hang': () => {
    // Never answers.
  },
  // Loads at once, then keeps a request open forever (a long poll), which must not stall the settle.
  '/long-poll': (_req, res) =>
    send(res, 200, 'text/html', html('<p id="lp">ready</p>', `<script>addEventListener('load', () => fetch('/hang'));</script>`)),
  '/json': (_req, res) => send(res, 200, 'application/json; charset=utf-8', '{"hello":"world"}'),
  '/pdf': (_req, res) => send(res, 200, 'application/pdf', PDF_BYTES),
  '/png': (_req, res) => send(res, 200, 'image/png', PNG_BYTES),
  '/no-content': (_req, res) => {
    res.writeHead(204);
    res.end();
  },
  '/download': (_req, res) => send(res, 200, 'application/octet-stream', 'binary', { 'content-disposition': 'attachment; filename=x.bin' }),
  '/set-state': (_req, res) =>
    send(
      res,
      200,
      'text/html',
      html('<p>state set</p>', `<script>localStorage.setItem('secret', 'from-first-use');</script>`),
      { 'set-cookie': 'session=first-use; Path=/' },
    ),
  '/read-state': (req, res) =>
    send(
      res,
      200,
      'text/html',
      html(
        `<p id="cookie">${escapeHtml(String(req.headers.cookie ?? ''))}</p><p id="storage"></p>`,
        `<script>addEventListener('DOMContentLoaded', () => { document.getElementById('storage').textContent = localStorage.getItem('secret') ?? ''; });</script>`,
      ),
    ),
  '/basic-auth': (req, res) => {
    if (!req.headers.authorization) {
      send(res, 401, 'text/html', html('<p id="auth">anonymous</p>'), { 'www-authenticate': 'Basic realm="fixture"' });
      return;
    }
    send(res, 200, 'text/html', html(`<p id="auth">${escapeHtml(req.headers.authorization)}</p>`));
  },
  '/with-ads': (_req, res) =>
    send(res, 200, 'text/html', html('<p>article</p><img src="/ads/banner.png"><script src="/ads/tracker.js"></script><img src="/png">')),
  '/ads/banner.png': (_req, res) => send(res, 200, 'image/png', PNG_BYTES),
  '/ads/tracker.js': (_req, res) => send(res, 200, 'text/javascript', 'window.tracked = true;'),
  '/plain': (_req, res) => send(res, 200, 'text/html', html('<h1>plain page</h1>')),
  // Cacheable for an hour, and different for each x-custom header: what a shared HTTP cache would leak.
  '/cacheable': (req, res) =>
    send(res, 200, 'text/plain', `for ${String(req.headers['x-custom'] ?? 'nobody')}`, { 'cache-control': 'max-age=3600' }),
};

function handler(requests: SeenRequest[]): Handler {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    requests.push({ path, headers: req.headers });
    const route = routes[path];
    if (route) route(req, res);
    else send(res, 404, 'text/plain', 'unknown fixture route');
  };
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const requests: SeenRequest[] = [];
  const plain = http.createServer(handler(requests));
  const secure = https.createServer(selfSignedCert(), handler(requests));
  const [port, securePort] = await Promise.all([listen(plain), listen(secure)]);
  return {
    url: `http://127.0.0.1:${port}`,
    httpsUrl: `https://127.0.0.1:${securePort}`,
    requests,
    close: async () => {
      for (const server of [plain, secure]) server.closeAllConnections();
      await Promise.all([plain, secure].map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
