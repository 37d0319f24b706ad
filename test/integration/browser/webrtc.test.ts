/**
 * WebRTC cannot reach loopback or private UDP ports from a rendered page: STUN and TURN over UDP
 * never pass through the guard proxy, so Chromium runs with WebRTC limited to proxied TCP.
 * That holds when the operator adds Chromium flags of their own too: flags put before Trawl's
 * lose (Chromium keeps a switch's last value), and a browser whose flags put after them would win
 * (8 datagrams, measured) is refused at launch.
 */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { WEBRTC_POLICY_ARG, webRtcPolicyProblem } from '../../../browser/webrtc-policy.js';
import { fetchWithBrowser } from '../../../scraper/engines/browser.js';
import { addressPolicyFor } from '../../../scraper/net/address-policy.js';
import { startGuardProxy, type GuardProxy } from '../../../scraper/net/guard-proxy.js';

let udp: Socket;
let datagrams = 0;
let site: Server;
let siteUrl: string;
let guard: GuardProxy;
let pool: BrowserPool;
let wrapperDir: string;
let userFlagsPool: BrowserPool;
let overridingPool: BrowserPool;

/** A page that asks for ICE candidates from a STUN and a TURN server on the UDP port. */
function page(udpPort: number): string {
  return `<!doctype html><html><body><p id="state">waiting</p><script>
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
  udp = createSocket('udp4');
  udp.on('message', () => {
    datagrams += 1;
  });
  udp.bind(0, '127.0.0.1');
  await once(udp, 'listening');
  const udpPort = (udp.address() as AddressInfo).port;
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(udpPort))).listen(0, '127.0.0.1');
  await once(site, 'listening');
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  // The production shape: every browser request through the guard (here allowing loopback, so
  // the page itself loads; UDP never asks it).
  guard = await startGuardProxy({ policy: addressPolicyFor(true) });
  pool = createBrowserPool({ maxConcurrentPages: 1, proxyServer: guard.url });
  // Operators' wrappers that ask for WebRTC's default policy (every interface, plain UDP), before
  // and after Trawl's flags. Without exec, as wrappers sometimes are: the browser is the shell's
  // child, and the launch check must read the browser's command line, not the shell's.
  wrapperDir = await mkdtemp(join(tmpdir(), 'trawl-webrtc-'));
  const wrapper = async (name: string, script: string) => {
    const path = join(wrapperDir, name);
    await writeFile(path, `#!/bin/sh\n${script}\n`);
    await chmod(path, 0o755);
    return path;
  };
  const before = await wrapper('flags-before', '/usr/bin/chromium --webrtc-ip-handling-policy=default "$@"');
  userFlagsPool = createBrowserPool({ maxConcurrentPages: 1, proxyServer: guard.url, executablePath: before });
  const after = await wrapper('flags-after', '/usr/bin/chromium "$@" --webrtc-ip-handling-policy=default');
  overridingPool = createBrowserPool({ maxConcurrentPages: 1, proxyServer: guard.url, executablePath: after });
});

afterAll(async () => {
  await pool?.close();
  await userFlagsPool?.close();
  await overridingPool?.close();
  if (wrapperDir) await rm(wrapperDir, { recursive: true, force: true });
  await guard?.close();
  site?.close();
  udp?.close();
});

describe('WebRTC in rendered pages', () => {
  it.each([
    ["with Trawl's flags", () => pool],
    ['when the operator adds a WebRTC flag of their own', () => userFlagsPool],
  ])('sends no STUN or TURN datagram to a loopback UDP port, %s', async (_when, poolOf) => {
    datagrams = 0;
    const rendered = await render(poolOf());
    expect(rendered.html).toContain('<p id="state">');
    expect(datagrams).toBe(0);
  });

  it('refuses to render in a browser whose operator flags, put after Trawl\'s, reopen plain UDP', async () => {
    datagrams = 0;
    await expect(render(overridingPool)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('--webrtc-ip-handling-policy=default comes after'),
    });
    expect(datagrams).toBe(0);
  });
});

function render(browserPool: BrowserPool) {
  return fetchWithBrowser(browserPool, {
    url: siteUrl,
    network: { allowPrivateNetwork: true, skipTlsVerification: false },
    signal: new AbortController().signal,
    deadline: Date.now() + 20_000,
    // Long enough for ICE gathering to send its first binding requests.
    waitForMs: 3_000,
    blockAds: false,
  });
}

describe('webRtcPolicyProblem', () => {
  const chromium = '/usr/lib/chromium/chromium';
  it.each([
    [[chromium, WEBRTC_POLICY_ARG], undefined],
    [[chromium, '--webrtc-ip-handling-policy=default', WEBRTC_POLICY_ARG], undefined],
    [[chromium, '--force-webrtc-ip-handling-policy=disable_non_proxied_udp', WEBRTC_POLICY_ARG], undefined],
    [[chromium], /is missing/],
    [[chromium, WEBRTC_POLICY_ARG, '--webrtc-ip-handling-policy=default'], /default comes after/],
    [[chromium, WEBRTC_POLICY_ARG, '-webrtc-ip-handling-policy=default_public_interface_only'], /comes after/],
    [[chromium, '--force-webrtc-ip-handling-policy=default', WEBRTC_POLICY_ARG], /overrides/],
  ])('%j → %s', (argv, expected) => {
    const problem = webRtcPolicyProblem(argv);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});
