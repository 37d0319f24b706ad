/**
 * Fixture pages for browser actions, served on 127.0.0.1. Each page changes visibly when an
 * action does its job, so a test can see the effect in the captured content.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestUrl } from './request-url.js';

export interface ActionsSite {
  url: string;
  close(): Promise<void>;
}

/** Items the infinite-scroll page loads per batch; the first batch loads on its own. */
export const ITEMS_PER_BATCH = 20;

const FILLER = '<p>This sentence is here so the page has enough text of its own to count as content.</p>';

function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${FILLER}${body}</main></body></html>`;
}

const pages: Record<string, string> = {
  // Each #reveal click adds a paragraph; each .count button bumps one shared counter.
  '/reveal': html(
    'Reveal',
    `<button id="reveal" onclick="const p = document.createElement('p'); p.textContent = 'The revealed secret text.'; this.after(p)">Show</button>
<button class="count" onclick="bump()">one</button><button class="count" onclick="bump()">two</button><button class="count" onclick="bump()">three</button>
<button class="count" style="display:none" onclick="bump()">hidden</button>
<button id="invisible" style="display:none">Hidden</button>
<p id="count">Clicked 0 times</p>
<script>let clicks = 0; function bump() { document.getElementById('count').textContent = 'Clicked ' + ++clicks + ' times'; }</script>`,
  ),
  // A plain GET form: Enter in the field submits it and navigates to /echo.
  '/form': html('Form', '<form action="/echo" method="get"><input id="q" name="q" autocomplete="off"><button>Send</button></form>'),
  // Appends a batch of items from /items whenever the window is scrolled near its bottom.
  '/infinite': html(
    'Infinite',
    `<style>.item { height: 60px; margin: 0; }</style><div id="list"></div>
<script>
let batch = 0, loading = false;
async function more() {
  if (loading) return;
  loading = true;
  const items = await (await fetch('/items?batch=' + batch)).json();
  for (const text of items) {
    const p = document.createElement('p');
    p.className = 'item';
    p.textContent = text;
    document.getElementById('list').append(p);
  }
  batch++;
  loading = false;
}
more();
addEventListener('scroll', () => { if (innerHeight + scrollY >= document.body.scrollHeight - 200) more(); });
</script>`,
  ),
  // A tall page with a scrollable box; both report where they are scrolled to.
  '/scroll': html(
    'Scroll',
    `<div id="box" style="height: 200px; overflow: auto"><div style="height: 2000px">Box content</div></div>
<p id="box-pos">Box at 0</p>
<div style="height: 4000px"></div>
<script>
const box = document.getElementById('box');
box.addEventListener('scroll', () => { document.getElementById('box-pos').textContent = 'Box at ' + box.scrollTop; });
</script>`,
  ),
  '/plain': html('Plain', '<p>Nothing moves on this page.</p>'),
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = requestUrl(req, 'fixture');
  if (!url) return void res.writeHead(400).end();
  if (url.pathname === '/echo') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html('Echo', `<p>You wrote: ${escapeHtml(url.searchParams.get('q') ?? '')}</p>`));
    return;
  }
  if (url.pathname === '/delayed') {
    // #late appears `ms` (default 500) after load; past 1.5 s it is after the engine's settle for sure.
    const ms = Number(url.searchParams.get('ms') ?? 500);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      html(
        'Delayed',
        `<script>addEventListener('load', () => setTimeout(() => {
  const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Late arrival paragraph.'; document.querySelector('main').append(p);
}, ${ms}));</script>`,
      ),
    );
    return;
  }
  if (url.pathname === '/items') {
    const batch = Number(url.searchParams.get('batch') ?? 0);
    const items = Array.from({ length: ITEMS_PER_BATCH }, (_, i) => `Item ${batch * ITEMS_PER_BATCH + i + 1}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(items));
    return;
  }
  const page = pages[url.pathname];
  res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page ?? html('Not found', ''));
}

export async function startActionsSite(): Promise<ActionsSite> {
  const server = http.createServer(route);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
