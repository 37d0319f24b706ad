/**
 * Issue #19 through the whole stack (API → Temporal → worker with its guard proxy and Chromium):
 * what outside probing found, each checked the way a client would meet it.
 *
 * - WebRTC: a rendered page's STUN/TURN datagrams never reach a loopback UDP port (item 1).
 * - ReDoS: a crawl whose includePaths would backtrack exponentially on V8 completes, and
 *   patterns RE2 cannot run are refused with 400 naming the field (item 2).
 * - An unreachable target in the browser engine fails as it does in the HTTP engine, and costs
 *   nothing (item 7).
 */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { closedPort } from '../helpers/closed-port.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let api: ReturnType<typeof apiClient>;

let udp: Socket;
const datagrams: Buffer[] = [];
let site: Server;
let siteUrl: string;
const requested: string[] = [];

/** Forty `a`s and a `!`: `^/(a+)+$` tries about 2^40 ways to split it on a backtracking engine. */
const HOSTILE_PATH = `/${'a'.repeat(40)}!`;

function webrtcPage(udpPort: number): string {
  return `<!doctype html><html><body><h1>WebRTC probe</h1><p id="state">waiting</p><script>
    const pc = new RTCPeerConnection({ iceServers: [
      { urls: 'stun:127.0.0.1:${udpPort}' },
      { urls: 'turn:127.0.0.1:${udpPort}?transport=udp', username: 'u', credential: 'p' },
    ] });
    pc.createDataChannel('probe');
    pc.onicegatheringstatechange = () => { document.getElementById('state').textContent = pc.iceGatheringState; };
    pc.createOffer().then((offer) => pc.setLocalDescription(offer));
  </script></body></html>`;
}

beforeAll(async () => {
  api = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'hardening-team'));
  udp = createSocket('udp4');
  udp.on('message', (message) => datagrams.push(message));
  udp.bind(0, '127.0.0.1');
  await once(udp, 'listening');
  const udpPort = (udp.address() as AddressInfo).port;
  site = createServer((req, res) => {
    const path = req.url ?? '/';
    requested.push(path);
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (path === '/webrtc') return html(webrtcPage(udpPort));
    if (path === '/redos/') {
      return html(`<html><body><h1>Start</h1><p>Links with long paths.</p>
        <a href="${HOSTILE_PATH}">hostile</a><a href="/aaaa">matching</a></body></html>`);
    }
    if (path === '/aaaa' || path === HOSTILE_PATH) return html(`<html><body><h1>${path}</h1></body></html>`);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }).listen(0, '127.0.0.1');
  await once(site, 'listening');
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(() => {
  site?.close();
  udp?.close();
});

async function remainingCredits(): Promise<number> {
  const res = await api('/v2/team/credit-usage');
  return res.body.data.remainingCredits as number;
}

describe('WebRTC (#19 item 1)', () => {
  it('a scraped page that gathers ICE candidates sends no datagram to a loopback UDP port', async () => {
    // waitFor keeps the page open long enough for ICE gathering to send its binding requests
    // (Chromium without the policy sent 8 of them in 3 s).
    const res = await api('/v2/scrape', { body: { url: `${siteUrl}/webrtc`, waitFor: 3_000, formats: ['rawHtml'], maxAge: 0 } });
    expect(res.status).toBe(200);
    expect(res.body.data.rawHtml).toContain('WebRTC probe');
    expect(datagrams).toEqual([]);
  });
});

describe('user regular expressions (#19 item 2)', () => {
  it('a crawl whose includePaths backtracks exponentially on V8 completes, matching as it should', async () => {
    const res = await api('/v2/crawl', { body: { url: `${siteUrl}/redos/`, includePaths: ['^/(a+)+$'], crawlEntireDomain: true, sitemap: 'skip' } });
    expect(res.status).toBe(200);
    const job = await waitForJobEnd(api, 'crawl', res.body.id);
    expect(job.status).toBe('completed');
    const paths = job.data.map((d: { metadata: { sourceURL: string } }) => new URL(d.metadata.sourceURL).pathname).sort();
    expect(paths).toEqual(['/aaaa', '/redos/']);
    expect(requested).not.toContain(HOSTILE_PATH);
  });

  it.each([
    ['includePaths', { includePaths: ['(a)\\1'] }, 'includePaths'],
    ['excludePaths', { excludePaths: ['^/docs(?=/)'] }, 'excludePaths'],
  ])('refuses a pattern RE2 cannot run in %s with 400 naming the field', async (_what, options, field) => {
    const res = await api('/v2/crawl', { body: { url: `${siteUrl}/redos/`, ...options } });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(JSON.stringify(res.body)).toContain(field);
    expect(JSON.stringify(res.body)).toMatch(/no backreferences or lookahead/);
  });
});

describe('unreachable targets in the browser engine (#19 item 7)', () => {
  it('a refused connection is 502 SCRAPE_SITE_ERROR, as in the HTTP engine, and costs nothing', async () => {
    const before = await remainingCredits();
    const port = await closedPort();
    const res = await api('/v2/scrape', { body: { url: `http://127.0.0.1:${port}/`, waitFor: 500, timeout: 15_000, maxAge: 0 } });
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_SITE_ERROR' });
    expect(res.status).toBe(502);
    expect(await remainingCredits()).toBe(before);
  });

  it('a name that does not resolve is 400 SCRAPE_DNS_RESOLUTION_ERROR (the caller\'s URL; no SDK retry), and costs nothing', async () => {
    const before = await remainingCredits();
    const res = await api('/v2/scrape', {
      body: { url: 'http://no-such-host.invalid/', actions: [{ type: 'wait', milliseconds: 100 }], timeout: 15_000, maxAge: 0 },
    });
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_DNS_RESOLUTION_ERROR' });
    expect(res.status).toBe(400);
    expect(await remainingCredits()).toBe(before);
  });

  it('a map of a name that does not resolve answers as a scrape does, not 200 with no links', async () => {
    const res = await api('/v2/map', { body: { url: 'http://no-such-host.invalid/' } });
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_DNS_RESOLUTION_ERROR' });
    expect(res.status).toBe(400);
  });
});
