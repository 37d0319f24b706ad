import { describe, expect, it } from 'vitest';
import type { ProxyConfig } from '../../../lib/proxy-config.js';
import { createProxyRoutes, DIRECT_ROUTES, withProxyRoute, type ProxyRoute } from '../../../scraper/net/proxy-routes.js';

const config: ProxyConfig = {
  global: { basic: ['http://b1:1', 'http://b2:1'], enhanced: ['http://e1:1'] },
  countries: { DE: { basic: ['http://de:1'], enhanced: [] }, FR: { basic: [], enhanced: ['http://fr-e:1'] } },
};

describe('createProxyRoutes', () => {
  it('rotates each pool round-robin', () => {
    const routes = createProxyRoutes(config);
    expect([1, 2, 3].map(() => routes.next('basic').proxy)).toEqual(['http://b1:1', 'http://b2:1', 'http://b1:1']);
    expect(routes.next('enhanced')).toEqual({ tier: 'enhanced', proxy: 'http://e1:1' });
  });

  it("prefers the country's pool of the tier, else the global pool of that tier", () => {
    const routes = createProxyRoutes(config);
    expect(routes.next('basic', 'de')).toEqual({ tier: 'basic', proxy: 'http://de:1' });
    expect(routes.next('enhanced', 'DE')).toEqual({ tier: 'enhanced', proxy: 'http://e1:1' });
    expect(routes.next('enhanced', 'FR')).toEqual({ tier: 'enhanced', proxy: 'http://fr-e:1' });
    expect(routes.next('basic', 'FR').proxy).toMatch(/^http:\/\/b[12]:1$/);
    expect(routes.next('basic', 'JP').proxy).toMatch(/^http:\/\/b[12]:1$/);
  });

  it('serves enhanced from the basic pool, reported as basic, when no enhanced pool exists', () => {
    const routes = createProxyRoutes({ global: { basic: ['http://b:1'], enhanced: [] }, countries: {} });
    expect(routes.next('enhanced')).toEqual({ tier: 'basic', proxy: 'http://b:1' });
    expect(routes.hasEnhanced()).toBe(false);
  });

  it('connects directly, reported as basic, with no pools', () => {
    expect(DIRECT_ROUTES.next('enhanced')).toEqual({ tier: 'basic' });
  });
});

describe('withProxyRoute', () => {
  const statuses = (...codes: number[]) => {
    const seen: ProxyRoute[] = [];
    const attempt = async (route: ProxyRoute) => {
      seen.push(route);
      return { statusCode: codes[seen.length - 1] ?? 200 };
    };
    return { seen, attempt };
  };

  it.each([401, 403, 429])('auto retries through the enhanced pool after %i from basic', async (status) => {
    const { seen, attempt } = statuses(status, 200);
    const { result, proxyUsed } = await withProxyRoute(createProxyRoutes(config), 'auto', undefined, attempt);
    expect(seen.map((r) => r.tier)).toEqual(['basic', 'enhanced']);
    expect(result.statusCode).toBe(200);
    expect(proxyUsed).toBe('enhanced');
  });

  it('auto keeps the basic answer for other statuses, or when there is no enhanced pool', async () => {
    const notRefused = statuses(404);
    expect((await withProxyRoute(createProxyRoutes(config), 'auto', undefined, notRefused.attempt)).proxyUsed).toBe('basic');
    expect(notRefused.seen).toHaveLength(1);
    const noEnhanced = statuses(403);
    const routes = createProxyRoutes({ global: { basic: ['http://b:1'], enhanced: [] }, countries: {} });
    const outcome = await withProxyRoute(routes, 'auto', undefined, noEnhanced.attempt);
    expect(outcome).toEqual({ result: { statusCode: 403 }, proxyUsed: 'basic' });
  });

  it('basic and enhanced make one attempt; stealth is enhanced', async () => {
    for (const [mode, tier] of [['basic', 'basic'], ['enhanced', 'enhanced'], ['stealth', 'enhanced']] as const) {
      const { seen, attempt } = statuses(403);
      expect((await withProxyRoute(createProxyRoutes(config), mode, undefined, attempt)).proxyUsed).toBe(tier);
      expect(seen).toHaveLength(1);
    }
  });
});
