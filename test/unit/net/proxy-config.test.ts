import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../lib/config.js';
import { allProxyUrls, loadProxyConfig } from '../../../lib/proxy-config.js';

describe('loadProxyConfig', () => {
  it('reads comma-separated pools, normalised, with credentials kept', () => {
    const config = loadProxyConfig({
      PROXY_BASIC_URLS: ' http://u:p%40ss@10.0.0.1:3128 , https://proxy.example:8443/ ,',
      PROXY_ENHANCED_URLS: 'http://res.example:8000',
    });
    expect(config.global).toEqual({
      basic: ['http://u:p%40ss@10.0.0.1:3128', 'https://proxy.example:8443'],
      enhanced: ['http://res.example:8000'],
    });
    expect(config.countries).toEqual({});
  });

  it("accepts Firecrawl's PROXY_SERVER, PROXY_USERNAME and PROXY_PASSWORD as the basic pool", () => {
    const config = loadProxyConfig({ PROXY_SERVER: 'proxy.example:3128', PROXY_USERNAME: 'me', PROXY_PASSWORD: 'p@ss:word' });
    expect(config.global.basic).toEqual(['http://me:p%40ss%3Aword@proxy.example:3128']);
  });

  it('reads per-country pools of both tiers, any case', () => {
    const config = loadProxyConfig({ PROXY_COUNTRY_de_URLS: 'http://de.example:1', PROXY_COUNTRY_DE_ENHANCED_URLS: 'http://de2.example:1' });
    expect(config.countries).toEqual({ DE: { basic: ['http://de.example:1'], enhanced: ['http://de2.example:1'] } });
    expect(allProxyUrls(config)).toEqual(['http://de.example:1', 'http://de2.example:1']);
  });

  it.each([
    [{ PROXY_BASIC_URLS: 'socks5://127.0.0.1:1080' }, /PROXY_BASIC_URLS entry 1 is not an http\(s\)/],
    [{ PROXY_ENHANCED_URLS: 'http://a.example:1,http://b.example:1/path' }, /PROXY_ENHANCED_URLS entry 2 has a path/],
    [{ PROXY_BASIC_URLS: 'http://a.example:1', PROXY_SERVER: 'http://b.example:1' }, /not both/],
    [{ PROXY_USERNAME: 'me' }, /need PROXY_SERVER/],
    [{ PROXY_COUNTRY_GERMANY_URLS: 'http://a.example:1' }, /PROXY_COUNTRY_GERMANY_URLS: expected/],
  ])('refuses %j', (env, message) => {
    expect(() => loadProxyConfig(env)).toThrow(message);
  });

  it('never repeats a password in its errors', () => {
    expect(() => loadProxyConfig({ PROXY_BASIC_URLS: 'ftp://user:hunter2@a.example:1' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });

  it('is part of loadConfig, failing as a ConfigError', () => {
    expect(loadConfig({ PROXY_BASIC_URLS: 'http://a.example:1' }).proxies.global.basic).toEqual(['http://a.example:1']);
    expect(() => loadConfig({ PROXY_BASIC_URLS: 'nonsense://' })).toThrow(ConfigError);
  });
});
