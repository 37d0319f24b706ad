/**
 * X-Proxy-Url on its way to the worker (lib/caller-proxy.ts): only http(s) proxies pass, refusals
 * never quote the URL (it may hold a password), and the sealed form opens only for its team.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openCallerProxy, parseCallerProxy, sealCallerProxy } from '../../../lib/caller-proxy.js';

describe('parseCallerProxy', () => {
  it('takes http(s) proxies with or without credentials, http when no scheme is given', () => {
    expect(parseCallerProxy('http://user:p%40ss@proxy.example:3128')).toEqual({ url: 'http://user:p%40ss@proxy.example:3128' });
    expect(parseCallerProxy(' https://proxy.example:8443/ ')).toEqual({ url: 'https://proxy.example:8443' });
    expect(parseCallerProxy('proxy.example:3128')).toEqual({ url: 'http://proxy.example:3128' });
  });

  it('refuses SOCKS, other schemes, paths and garbage, without quoting the URL', () => {
    const refusals = {
      'socks5://user:hunter2@proxy.example:1080': /SOCKS proxies are not supported/,
      'socks5h://proxy.example:1080': /SOCKS/,
      'SOCKS4://proxy.example:1080': /SOCKS/,
      'ftp://user:hunter2@proxy.example:21': /not an http\(s\):\/\/\[user:pass@\]host:port proxy URL/,
      'http://user:hunter2@proxy.example:3128/path': /has a path, query or fragment/,
      'http://': /not an http\(s\)/,
    };
    for (const [raw, reason] of Object.entries(refusals)) {
      const parsed = parseCallerProxy(raw);
      expect(parsed, raw).toEqual({ problem: expect.stringMatching(reason) });
      expect(JSON.stringify(parsed)).not.toContain('hunter2');
    }
  });
});

describe('sealCallerProxy', () => {
  it('opens for the team it was sealed for, with the same key, and holds nothing readable', () => {
    const key = randomBytes(32);
    const url = 'http://user:hunter2@proxy.example:3128';
    const sealed = sealCallerProxy(key, 'team-a', url);
    expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('hunter2');
    expect(openCallerProxy(key, 'team-a', sealed)).toBe(url);
    expect(() => openCallerProxy(key, 'team-b', sealed)).toThrow();
    expect(() => openCallerProxy(randomBytes(32), 'team-a', sealed)).toThrow();
  });
});
