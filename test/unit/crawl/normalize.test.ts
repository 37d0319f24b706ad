import { describe, expect, it } from 'vitest';
import { TrawlError } from '../../../lib/errors.js';
import { fnv1a64 } from '../../../lib/url/fnv1a64.js';
import { normalizeUrl, resolveLink, urlKey } from '../../../lib/url/normalize.js';

const KEEP = { ignoreQueryParameters: false, deduplicateSimilarURLs: false };
const DEDUPE = { ignoreQueryParameters: false, deduplicateSimilarURLs: true };
const NO_QUERY = { ignoreQueryParameters: true, deduplicateSimilarURLs: false };

describe('normalizeUrl', () => {
  it.each([
    ['lower-cases scheme and host', 'HTTPS://Example.COM/Path', KEEP, 'https://example.com/Path'],
    ['drops the default https port', 'https://example.com:443/a', KEEP, 'https://example.com/a'],
    ['drops the default http port', 'http://example.com:80/a', KEEP, 'http://example.com/a'],
    ['keeps other ports', 'http://example.com:8080/a', KEEP, 'http://example.com:8080/a'],
    ['strips the fragment', 'https://example.com/a#section', KEEP, 'https://example.com/a'],
    ['strips an empty fragment', 'https://example.com/a#', KEEP, 'https://example.com/a'],
    ['collapses a trailing slash', 'https://example.com/docs/', KEEP, 'https://example.com/docs'],
    ['collapses repeated trailing slashes', 'https://example.com/docs//', KEEP, 'https://example.com/docs'],
    ['keeps the root slash', 'https://example.com', KEEP, 'https://example.com/'],
    ['collapses index.html', 'https://example.com/docs/index.html', KEEP, 'https://example.com/docs'],
    ['collapses index.htm', 'https://example.com/docs/index.htm', KEEP, 'https://example.com/docs'],
    ['collapses index.php', 'https://example.com/index.php', KEEP, 'https://example.com/'],
    ['collapses INDEX.HTML', 'https://example.com/a/INDEX.HTML', KEEP, 'https://example.com/a'],
    ['keeps other index-like names', 'https://example.com/a/index.json', KEEP, 'https://example.com/a/index.json'],
    ['keeps myindex.html', 'https://example.com/myindex.html', KEEP, 'https://example.com/myindex.html'],
    ['resolves dot segments', 'https://example.com/a/./b/../c', KEEP, 'https://example.com/a/c'],
    ['keeps path case', 'https://example.com/Docs/API', KEEP, 'https://example.com/Docs/API'],
    ['sorts query parameters', 'https://example.com/a?b=2&a=1&c=3', KEEP, 'https://example.com/a?a=1&b=2&c=3'],
    ['keeps order of repeated names', 'https://example.com/a?z=1&a=2&a=1', KEEP, 'https://example.com/a?a=2&a=1&z=1'],
    ['keeps valueless parameters as written', 'https://example.com/a?b&a=', KEEP, 'https://example.com/a?a=&b'],
    ['drops an empty query', 'https://example.com/a?', KEEP, 'https://example.com/a'],
    ['drops empty pairs', 'https://example.com/a?&b=1&&a=2&', KEEP, 'https://example.com/a?a=2&b=1'],
    ['keeps the query with a slash-collapsed path', 'https://example.com/docs/?p=1', KEEP, 'https://example.com/docs?p=1'],
    ['strips all parameters when ignoring them', 'https://example.com/a/?b=2&a=1#x', NO_QUERY, 'https://example.com/a'],
    ['decodes escaped unreserved characters', 'https://example.com/%7Euser/%61b', KEEP, 'https://example.com/~user/ab'],
    ['upper-cases other escapes', 'https://example.com/a%2fb?q=%c3%a9', KEEP, 'https://example.com/a%2Fb?q=%C3%A9'],
    ['keeps www without dedupe', 'https://www.example.com/', KEEP, 'https://www.example.com/'],
    ['keeps http without dedupe', 'http://example.com/', KEEP, 'http://example.com/'],
    ['folds www with dedupe', 'https://www.example.com/a', DEDUPE, 'https://example.com/a'],
    ['folds http to https with dedupe', 'http://example.com/a', DEDUPE, 'https://example.com/a'],
    ['folds both with dedupe', 'http://WWW.Example.com:80/a/index.html#top', DEDUPE, 'https://example.com/a'],
    ['does not fold www.com', 'https://www.com/', DEDUPE, 'https://www.com/'],
    ['does not fold other subdomains', 'https://docs.example.com/', DEDUPE, 'https://docs.example.com/'],
    ['keeps IPv6 hosts', 'http://[::1]:8080/a/', KEEP, 'http://[::1]:8080/a'],
    ['trims whitespace', '  https://example.com/a \n', KEEP, 'https://example.com/a'],
  ])('%s', (_name, input, opts, expected) => {
    expect(normalizeUrl(input, opts)).toBe(expected);
  });

  it('gives every alias of a page one key when deduplicating', () => {
    const aliases = [
      'https://example.com/',
      'https://example.com',
      'http://example.com/',
      'https://www.example.com/',
      'http://www.example.com',
      'https://example.com/index.html',
      'https://www.example.com/index.php',
      'https://example.com/#top',
      'HTTPS://EXAMPLE.COM:443/',
      'http://www.example.com/index.htm#x',
    ];
    const keys = new Set(aliases.map((url) => urlKey(normalizeUrl(url, DEDUPE))));
    expect(keys.size).toBe(1);
  });

  it('treats query order and fragments as one page, and distinct queries as distinct pages', () => {
    const a = normalizeUrl('https://example.com/list?page=2&sort=asc#r', KEEP);
    const b = normalizeUrl('https://example.com/list?sort=asc&page=2', KEEP);
    const c = normalizeUrl('https://example.com/list?sort=asc&page=3', KEEP);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(normalizeUrl('https://example.com/list?sort=asc&page=3', NO_QUERY)).toBe(
      normalizeUrl('https://example.com/list?page=2', NO_QUERY),
    );
  });

  it.each(['not a url', 'mailto:a@example.com', 'ftp://example.com/file', 'javascript:void(0)'])(
    'rejects %s with INVALID_URL',
    (input) => {
      expect(() => normalizeUrl(input, KEEP)).toThrow(TrawlError);
      try {
        normalizeUrl(input, KEEP);
      } catch (err) {
        expect((err as TrawlError).code).toBe('INVALID_URL');
      }
    },
  );
});

describe('urlKey', () => {
  it.each([
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ])('matches the FNV-1a 64 reference vector for %j', (input, expected) => {
    expect(fnv1a64(input)).toBe(expected);
    expect(urlKey(input)).toBe(expected);
  });

  it('agrees with a BigInt reference over UTF-8 bytes', () => {
    const reference = (text: string): string => {
      let hash = 0xcbf29ce484222325n;
      for (const byte of Buffer.from(text, 'utf8')) {
        hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      }
      return hash.toString(16).padStart(16, '0');
    };
    for (const text of ['https://example.com/', 'é', 'https://例え.jp/パス', '😀 emoji', 'x'.repeat(5000)]) {
      expect(fnv1a64(text)).toBe(reference(text));
    }
  });

  it('is 16 hex characters and distinguishes close URLs', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 10_000; i++) keys.add(urlKey(`https://example.com/page/${i}`));
    expect(keys.size).toBe(10_000);
    expect([...keys].every((key) => /^[0-9a-f]{16}$/.test(key))).toBe(true);
  });
});

describe('resolveLink', () => {
  const base = 'https://example.com/docs/intro?x=1#top';
  it.each([
    ['relative path', 'setup', 'https://example.com/docs/setup'],
    ['root-relative path', '/blog/', 'https://example.com/blog/'],
    ['parent path', '../about', 'https://example.com/about'],
    ['absolute URL', 'http://other.test/a', 'http://other.test/a'],
    ['protocol-relative URL', '//cdn.example.com/x', 'https://cdn.example.com/x'],
    ['fragment-only link is the page itself', '#section', 'https://example.com/docs/intro?x=1'],
    ['fragment is dropped', '/a#b', 'https://example.com/a'],
    ['query-only link', '?page=2', 'https://example.com/docs/intro?page=2'],
    ['surrounding whitespace', '  /a \n', 'https://example.com/a'],
    ['empty href is the page itself', '', 'https://example.com/docs/intro?x=1'],
  ])('%s', (_name, href, expected) => {
    expect(resolveLink(href, base)).toBe(expected);
  });

  it.each([
    'mailto:someone@example.com',
    'tel:+123456',
    'javascript:void(0)',
    ' JavaScript:alert(1)',
    'data:text/html,hi',
    'ftp://example.com/file',
    'http://',
  ])('rejects %j', (href) => {
    expect(resolveLink(href, base)).toBeUndefined();
  });

  it('rejects when the base is not a URL and the href is relative', () => {
    expect(resolveLink('/a', 'not a base')).toBeUndefined();
  });
});
