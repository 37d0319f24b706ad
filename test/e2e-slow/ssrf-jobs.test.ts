/**
 * SSRF protection past a job's first request, on a stack with it on (the default), with a model
 * and SearXNG configured: what a page's scripts and subresources ask for in the browser, and
 * the pages that search, extract and agent runs fetch. The "public" site listens on a global
 * unicast address added to the loopback interface (root only, see test/helpers/public-address.ts),
 * so the policy lets it through while 127.0.0.1 stays private.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { startFakeSearxng, type FakeSearxng } from '../helpers/fake-searxng.js';
import { addPublicAddress, canAddPublicAddress } from '../helpers/public-address.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from '../e2e/context.js';
import { say, startModelStack, type ModelStack } from '../e2e/llm-stack.js';

interface Recorder {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

async function serve(host: string, route: (path: string, origin: string) => { type: string; body: string } | undefined): Promise<Recorder> {
  const requests: string[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const page = route(path, origin);
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': page.type, 'access-control-allow-origin': '*' }).end(page.body);
  });
  server.listen(0, host);
  await once(server, 'listening');
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { origin, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}


describe.skipIf(!canAddPublicAddress)('SSRF protection past the first request (needs root for a public test address)', () => {
  let address: Awaited<ReturnType<typeof addPublicAddress>>;
  let inside: Recorder;
  let outside: Recorder;
  let searx: FakeSearxng;
  let strict: ModelStack;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    address = await addPublicAddress();
    inside = await serve('127.0.0.1', () => ({ type: 'text/plain', body: 'INTERNAL SECRET' }));
    outside = await serve(address.ip, (path) => {
      if (path === '/own') return { type: 'text/plain', body: 'own data loaded' };
      if (path === '/style.css') return { type: 'text/css', body: 'h1 { color: red }' };
      if (path !== '/page') return undefined;
      const secret = inside.origin;
      return {
        type: 'text/html',
        body: `<html><head><title>Public</title><link rel="stylesheet" href="/style.css"></head><body>
<h1>Public page</h1>
<img src="${secret}/pixel.png"><iframe src="${secret}/frame"></iframe>
<p id="leak">fetch pending</p><p id="own">own pending</p>
<script>
fetch('${secret}/fetch').then((r) => r.text()).then((t) => { document.getElementById('leak').textContent = 'LEAKED ' + t; }, () => { document.getElementById('leak').textContent = 'fetch refused'; });
fetch('/own').then((r) => r.text()).then((t) => { document.getElementById('own').textContent = t; });
</script></body></html>`,
      };
    });
    searx = await startFakeSearxng();
    strict = await startModelStack('trawl-strict-jobs', { ALLOW_PRIVATE_NETWORK: 'false', SEARXNG_ENDPOINT: searx.url });
    api = apiClient(strict.stack.apiUrl, await createKeyWithCli(e2eContext().databaseUrl, 'strict-jobs-team'));
  }, 300_000);

  afterAll(async () => {
    await strict?.stop();
    await Promise.all([inside?.close(), outside?.close(), searx?.close()]);
    await address?.release();
  });

  const browserScrape = (client: ReturnType<typeof apiClient>) =>
    client('/v2/scrape', { body: { url: `${outside.origin}/page`, formats: ['markdown'], waitFor: 1500, timeout: 20_000 } });

  it('lets a page reach private addresses only where private networks are allowed (the control)', async () => {
    const { apiUrl, apiKey } = e2eContext();
    const res = await browserScrape(apiClient(apiUrl, apiKey));
    expect(res.status).toBe(200);
    // Chromium itself fetched every one of them: what blocks them on the strict stack is Trawl.
    expect(res.body.data.markdown).toContain('LEAKED INTERNAL SECRET');
    expect(inside.requests).toEqual(expect.arrayContaining(['/pixel.png', '/frame', '/fetch']));
  });

  it('blocks the subresources, frames and fetch() calls of a public page that aim at private addresses', async () => {
    inside.requests.length = 0;
    outside.requests.length = 0;
    const res = await browserScrape(api);
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('own data loaded');
    expect(res.body.data.markdown).toContain('fetch refused');
    expect(outside.requests).toEqual(expect.arrayContaining(['/page', '/style.css', '/own']));
    expect(inside.requests).toEqual([]);
  });

  it('blocks search results that point at private addresses, scraping the public ones', async () => {
    inside.requests.length = 0;
    searx.resultUrls = [`${inside.origin}/one`, `${outside.origin}/own`, 'http://[::ffff:7f00:1]/two'];
    const res = await api('/v2/search', { body: { query: 'anything', limit: 3, scrapeOptions: { formats: ['markdown'] } } });
    searx.resultUrls = undefined;
    expect(res.status).toBe(200);
    const web = res.body.data.web as { url: string; markdown?: string; metadata?: { error?: string; statusCode?: number } }[];
    expect(web.find((r) => r.url.startsWith(outside.origin))?.markdown).toContain('own data loaded');
    const blocked = web.filter((r) => !r.url.startsWith(outside.origin));
    expect(blocked).toHaveLength(2);
    for (const r of blocked) expect(r.markdown).toBeUndefined();
    expect(inside.requests).toEqual([]);
  });

  it('blocks the private pages of an extract, naming them in its warning, and extracts from the public ones', async () => {
    inside.requests.length = 0;
    strict.model.reset();
    const res = await api('/v2/extract', { body: { urls: [`${inside.origin}/a`, `${outside.origin}/own`], prompt: 'the data' } });
    expect(res.status).toBe(200);
    const done = await waitForJobEnd(api, 'extract', res.body.id);
    // Only the public page was read and charged (1 + 4 for its json format).
    expect(done).toMatchObject({ status: 'completed', creditsUsed: 5, warning: `Not read: ${inside.origin}/a (SSRF_BLOCKED).` });
    expect(strict.model.requests.map((r) => r.messages.at(-1)!.content).join('\n')).toContain('own data loaded');
    expect(inside.requests).toEqual([]);
  });

  it('blocks an agent tool aimed at a private address, and tells the model why', async () => {
    inside.requests.length = 0;
    strict.model.reset();
    strict.model.script(say({ tool: 'scrape', url: `${inside.origin}/secret` }), say({ tool: 'map', url: `${inside.origin}/` }), say({ tool: 'finish', result: {} }));
    const res = await api('/v2/agent', { body: { prompt: 'read the intranet' } });
    expect(res.status).toBe(200);
    for (let i = 0; i < 200 && (await api(`/v2/agent/${res.body.id}`)).body.status === 'processing'; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await api(`/v2/agent/${res.body.id}`)).body).toMatchObject({ status: 'completed', creditsUsed: 0 });
    const transcript = strict.model.requests.at(-1)!.messages.at(-1)!.content!;
    expect(transcript.match(/Failed: .*(private|not a public|SSRF)/gi)).toHaveLength(2);
    expect(inside.requests).toEqual([]);
  });
});
