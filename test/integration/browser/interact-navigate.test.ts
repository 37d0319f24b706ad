import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { navigate, OpFailed } from '../../../browser/interact/ops.js';
import { addressPolicyFor } from '../../../scraper/net/address-policy.js';
import { startGuardProxy, type GuardProxy } from '../../../scraper/net/guard-proxy.js';
import { closedPort } from '../../helpers/closed-port.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

/** A session's `open` reads what the guard proxy answered for itself as a failure, never as the site's page. */
describe("an interact session's navigation through the guard proxy", () => {
  let site: FixtureServer;
  const guards: GuardProxy[] = [];
  const pools: BrowserPool[] = [];

  beforeAll(async () => {
    site = await startFixtureServer();
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
    await Promise.all(guards.map((guard) => guard.close()));
    await site?.close();
  });

  async function navigateThrough(allowPrivateNetwork: boolean, url: string): Promise<unknown> {
    const guard = await startGuardProxy({ policy: addressPolicyFor(allowPrivateNetwork) });
    const pool = createBrowserPool({ maxConcurrentPages: 1, proxyServer: guard.url });
    guards.push(guard);
    pools.push(pool);
    return pool.withPage({}, (page) =>
      navigate({ page, signal: new AbortController().signal, remainingMs: () => 15_000 }, url).then(
        () => undefined,
        (err: unknown) => err,
      ),
    );
  }

  it('fails a blocked address with the SSRF reason', async () => {
    const err = await navigateThrough(false, `${site.url}/plain`);
    expect(err).toBeInstanceOf(OpFailed);
    expect((err as Error).message).toMatch(/address is not allowed/);
  });

  it("fails an unreachable target with the connection's error, not the proxy's 502 page", async () => {
    const err = await navigateThrough(true, `http://127.0.0.1:${await closedPort()}/`);
    expect(err).toBeInstanceOf(OpFailed);
    expect((err as Error).message).toMatch(/ECONNREFUSED|refused/i);
  });

  it('opens a reachable page', async () => {
    expect(await navigateThrough(true, `${site.url}/plain`)).toBeUndefined();
  });
});
