import { describe, expect, it } from 'vitest';
import { TrawlError } from '../../../lib/errors.js';
import { MAX_PATH_PATTERNS, validatePathRegexes } from '../../../lib/crawl/path-patterns.js';
import { createScope, type CrawlScopeOptions, type ScopeVerdict } from '../../../lib/crawl/scope.js';
import { crawlOptionsFromV1 } from '../../../lib/crawl/v1-options.js';

const START = 'http://site.test/docs/intro';

type Row = [name: string, options: Partial<CrawlScopeOptions>, url: string, depth: number, verdict: ScopeVerdict['ok'] | string];

function verdictOf(options: Partial<CrawlScopeOptions>, url: string, depth: number): true | string {
  const verdict = createScope({ startUrl: START, ...options }).check(url, depth);
  return verdict.ok ? true : verdict.reason;
}

describe('createScope', () => {
  const rows: Row[] = [
    // crawlEntireDomain off: at or below the start path, segment-wise
    ['the start URL itself', {}, 'http://site.test/docs/intro', 0, true],
    ['start URL with trailing slash', {}, 'http://site.test/docs/intro/', 1, true],
    ['start URL as index.html', {}, 'http://site.test/docs/intro/index.html', 1, true],
    ['a page below the start path', {}, 'http://site.test/docs/intro/setup', 1, true],
    ['a query on the start page', {}, 'http://site.test/docs/intro?tab=2', 1, true],
    ['a sibling page', {}, 'http://site.test/docs/setup', 1, 'outside-path'],
    ['a page sharing only a string prefix', {}, 'http://site.test/docs/introduction', 1, 'outside-path'],
    ['the parent directory', {}, 'http://site.test/docs', 1, 'outside-path'],
    ['the site root', {}, 'http://site.test/', 1, 'outside-path'],
    ['www twin of the start host under the path', {}, 'https://www.site.test/docs/intro/a', 1, true],
    ['https variant of the start host', {}, 'https://site.test/docs/intro/b', 1, true],
    // crawlEntireDomain on
    ['sibling with crawlEntireDomain', { crawlEntireDomain: true }, 'http://site.test/docs/setup', 1, true],
    ['root with crawlEntireDomain', { crawlEntireDomain: true }, 'http://site.test/', 1, true],
    ['other path with crawlEntireDomain', { crawlEntireDomain: true }, 'http://site.test/blog/post', 1, true],
    // hosts
    ['another site', {}, 'http://other.test/docs/intro', 1, 'external'],
    ['another site with allowSubdomains', { allowSubdomains: true }, 'http://other.test/docs/intro', 1, 'external'],
    ['another site with allowExternalLinks', { allowExternalLinks: true }, 'http://other.test/anything', 1, true],
    ['a subdomain', {}, 'http://a.site.test/docs/intro', 1, 'subdomain'],
    ['a subdomain with allowSubdomains', { allowSubdomains: true }, 'http://a.site.test/elsewhere', 1, true],
    ['a deep subdomain with allowSubdomains', { allowSubdomains: true }, 'http://b.a.site.test/', 1, true],
    ['a subdomain with allowExternalLinks', { allowExternalLinks: true }, 'http://a.site.test/x', 1, true],
    ['a look-alike site', { allowSubdomains: true }, 'http://notsite.test/docs/intro', 1, 'external'],
    // depth
    ['depth within maxDiscoveryDepth', { maxDiscoveryDepth: 2 }, 'http://site.test/docs/intro/a', 2, true],
    ['depth beyond maxDiscoveryDepth', { maxDiscoveryDepth: 2 }, 'http://site.test/docs/intro/a', 3, 'depth'],
    ['maxDiscoveryDepth 0 keeps the start page', { maxDiscoveryDepth: 0 }, START, 0, true],
    ['maxDiscoveryDepth 0 drops its links', { maxDiscoveryDepth: 0 }, 'http://site.test/docs/intro/a', 1, 'depth'],
    ['unlimited depth by default', {}, 'http://site.test/docs/intro/a', 500, true],
    // file types
    ['an image', {}, 'http://site.test/docs/intro/shot.PNG', 1, 'file-type'],
    ['an archive', {}, 'http://site.test/docs/intro/src.tar.gz', 1, 'file-type'],
    ['a video', {}, 'http://site.test/docs/intro/demo.mp4', 1, 'file-type'],
    ['a font', {}, 'http://site.test/docs/intro/f.woff2', 1, 'file-type'],
    ['an executable', {}, 'http://site.test/docs/intro/setup.exe', 1, 'file-type'],
    ['a stylesheet', {}, 'http://site.test/docs/intro/site.css?v=3', 1, 'file-type'],
    ['a script', {}, 'http://site.test/docs/intro/app.js', 1, 'file-type'],
    ['a PDF is scraped', {}, 'http://site.test/docs/intro/guide.pdf', 1, true],
    ['an html page', {}, 'http://site.test/docs/intro/page.html', 1, true],
    ['a dot in a directory name', {}, 'http://site.test/docs/intro/v1.2/', 1, true],
    // social
    ['a social host', { allowExternalLinks: true }, 'https://twitter.com/site', 1, 'social'],
    ['a social subdomain', { allowExternalLinks: true }, 'https://m.facebook.com/site', 1, 'social'],
    ['x.com', { allowExternalLinks: true }, 'https://x.com/site', 1, 'social'],
    ['youtu.be', { allowExternalLinks: true }, 'https://youtu.be/abc', 1, 'social'],
    ['a look-alike of a social host', { allowExternalLinks: true }, 'https://notx.com/', 1, true],
    ['a social link without external links', {}, 'https://www.linkedin.com/company/x', 1, 'external'],
    // invalid
    ['mailto', {}, 'mailto:a@site.test', 1, 'invalid'],
    ['garbage', {}, 'http//broken', 1, 'invalid'],
    ['ftp', {}, 'ftp://site.test/docs/intro/a', 1, 'invalid'],
  ];

  it.each(rows)('%s', (_name, options, url, depth, expected) => {
    expect(verdictOf(options, url, depth)).toBe(expected);
  });

  it('follows a social site when the crawl starts on it', () => {
    const scope = createScope({ startUrl: 'https://www.youtube.com/', allowSubdomains: true });
    expect(scope.check('https://www.youtube.com/about', 1)).toEqual({ ok: true });
    expect(scope.check('https://m.youtube.com/about', 1)).toEqual({ ok: true });
  });

  it('uses the directory when the start URL names a file', () => {
    const scope = createScope({ startUrl: 'https://example.com/docs/intro.html' });
    expect(scope.check('https://example.com/docs/setup.html', 1)).toEqual({ ok: true });
    expect(scope.check('https://example.com/blog/', 1)).toEqual({ ok: false, reason: 'outside-path' });
  });

  it('does not path-restrict other hosts let in by allowSubdomains', () => {
    const scope = createScope({ startUrl: 'https://example.com/docs', allowSubdomains: true });
    expect(scope.check('https://api.example.com/v1/reference', 1)).toEqual({ ok: true });
    expect(scope.check('https://example.com/blog', 1)).toEqual({ ok: false, reason: 'outside-path' });
  });

  it('uses the public suffix list for sites', () => {
    const couk = createScope({ startUrl: 'https://www.example.co.uk/', allowSubdomains: true });
    expect(couk.check('https://shop.example.co.uk/', 1)).toEqual({ ok: true });
    expect(couk.check('https://other.co.uk/', 1)).toEqual({ ok: false, reason: 'external' });
    // github.io is a private suffix: another user's pages are another site.
    const pages = createScope({ startUrl: 'https://alice.github.io/', allowSubdomains: true });
    expect(pages.check('https://bob.github.io/', 1)).toEqual({ ok: false, reason: 'external' });
  });

  it('treats IP hosts as their own site', () => {
    const scope = createScope({ startUrl: 'http://127.0.0.1:8080/', allowSubdomains: true });
    expect(scope.check('http://127.0.0.1:8080/a', 1)).toEqual({ ok: true });
    expect(scope.check('http://127.0.0.2:8080/a', 1)).toEqual({ ok: false, reason: 'external' });
  });
});

describe('createScope include/exclude paths', () => {
  const root = 'https://example.com/';
  type PathRow = [name: string, options: Partial<CrawlScopeOptions>, url: string, expected: true | string];
  const rows: PathRow[] = [
    ['include matches the pathname', { includePaths: ['^/blog/.*'] }, 'https://example.com/blog/post-1', true],
    ['include rejects other paths', { includePaths: ['^/blog/.*'] }, 'https://example.com/docs/a', 'not-included'],
    ['include is tested against the pathname only', { includePaths: ['^/blog/.*'] }, 'https://example.com/x?next=/blog/a', 'not-included'],
    ['include anchored on the full pathname', { includePaths: ['^/pricing$'] }, 'https://example.com/pricing', true],
    ['include anchored rejects a longer path', { includePaths: ['^/pricing$'] }, 'https://example.com/pricing/teams', 'not-included'],
    ['unanchored include matches anywhere', { includePaths: ['blog'] }, 'https://example.com/en/blog', true],
    ['any of several includes', { includePaths: ['^/a/', '^/b/'] }, 'https://example.com/b/1', true],
    ['exclude rejects', { excludePaths: ['^/blog/drafts'] }, 'https://example.com/blog/drafts/x', 'excluded'],
    ['exclude lets others through', { excludePaths: ['^/blog/drafts'] }, 'https://example.com/blog/x', true],
    ['exclude wins over include', { includePaths: ['^/blog/'], excludePaths: ['drafts'] }, 'https://example.com/blog/drafts/1', 'excluded'],
    ['empty includes admit everything', { includePaths: [] }, 'https://example.com/anything', true],
    ['regexOnFullURL matches the full URL', { regexOnFullURL: true, includePaths: ['^https://(www\\.)?example\\.com/pricing$'] }, 'https://example.com/pricing', true],
    ['regexOnFullURL rejects other URLs', { regexOnFullURL: true, includePaths: ['^https://(www\\.)?example\\.com/pricing$'] }, 'https://example.com/pricing/x', 'not-included'],
    ['regexOnFullURL sees the query', { regexOnFullURL: true, excludePaths: ['[?&]page='] }, 'https://example.com/list?page=3', 'excluded'],
    ['regexOnFullURL ignores the fragment', { regexOnFullURL: true, includePaths: ['/a$'] }, 'https://example.com/a#frag', true],
    ['without regexOnFullURL the host is not seen', { excludePaths: ['example'] }, 'https://example.com/a', true],
    ['patterns are case-sensitive', { includePaths: ['^/Blog'] }, 'https://example.com/blog', 'not-included'],
  ];

  it.each(rows)('%s', (_name, options, url, expected) => {
    const verdict = createScope({ startUrl: root, ...options }).check(url, 1);
    expect(verdict.ok ? true : verdict.reason).toBe(expected);
  });

  it('throws BAD_REQUEST for an invalid pattern', () => {
    expect(() => createScope({ startUrl: root, includePaths: ['('] })).toThrow(TrawlError);
    try {
      createScope({ startUrl: root, excludePaths: ['[a-'] });
    } catch (err) {
      expect((err as TrawlError).code).toBe('BAD_REQUEST');
    }
  });

  it('throws INVALID_URL for an invalid start URL', () => {
    expect(() => createScope({ startUrl: 'nope' })).toThrow(/Invalid start URL/);
  });
});

describe('validatePathRegexes', () => {
  it.each([
    [[], undefined],
    [['^/blog/.*', 'docs', '\\.html$'], undefined],
  ])('accepts %j', (list, expected) => {
    expect(validatePathRegexes(list)).toBe(expected);
  });

  it.each([['('], ['^/ok', '*bad'], ['[z-a]']])('reports %j', (...list) => {
    const message = validatePathRegexes(list);
    expect(message).toMatch(/^Invalid regular expression/);
  });

  it('names the offending pattern', () => {
    expect(validatePathRegexes(['^/ok', '(unclosed'])).toContain('"(unclosed"');
  });

  it('caps the number of patterns', () => {
    expect(validatePathRegexes(Array.from({ length: MAX_PATH_PATTERNS + 1 }, () => 'a'))).toMatch(/At most/);
    expect(validatePathRegexes(Array.from({ length: MAX_PATH_PATTERNS }, () => 'a'))).toBeUndefined();
  });
});

describe('crawlOptionsFromV1', () => {
  it.each([
    ['maxDepth', { maxDepth: 3 }, { maxDiscoveryDepth: 3 }],
    ['maxDiscoveryDepth wins over maxDepth', { maxDepth: 3, maxDiscoveryDepth: 1 }, { maxDiscoveryDepth: 1 }],
    ['allowBackwardLinks', { allowBackwardLinks: true }, { crawlEntireDomain: true }],
    ['allowBackwardCrawling', { allowBackwardCrawling: true }, { crawlEntireDomain: true }],
    ['allowBackwardLinks false', { allowBackwardLinks: false }, { crawlEntireDomain: false }],
    ['crawlEntireDomain wins', { allowBackwardLinks: true, crawlEntireDomain: false }, { crawlEntireDomain: false }],
    ['ignoreSitemap true', { ignoreSitemap: true }, { sitemap: 'skip' }],
    ['ignoreSitemap false', { ignoreSitemap: false }, { sitemap: 'include' }],
    ['nothing set stays unset', {}, {}],
  ])('%s', (_name, v1, expected) => {
    expect(crawlOptionsFromV1(v1)).toEqual(expected);
  });

  it('passes other options through unchanged', () => {
    const v2 = crawlOptionsFromV1({ includePaths: ['^/a'], limit: 5, allowSubdomains: true, maxDepth: 2 });
    expect(v2).toEqual({ includePaths: ['^/a'], limit: 5, allowSubdomains: true, maxDiscoveryDepth: 2 });
    expect(v2).not.toHaveProperty('maxDepth');
  });
});

describe('path patterns run in linear time (RE2)', () => {
  it('matches a catastrophic-backtracking pattern against a hostile path at once', () => {
    // On V8's engine this pattern takes seconds at 26 characters and doubles with each one more;
    // at 5,000 it would never finish. RE2 answers in time linear in the path.
    const scope = createScope({ startUrl: 'http://site.test/', includePaths: ['^/(a+)+$'], crawlEntireDomain: true });
    expect(scope.check(`http://site.test/${'a'.repeat(5_000)}!`, 1)).toMatchObject({ ok: false });
    expect(scope.check('http://site.test/aaaa', 1)).toMatchObject({ ok: true });
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a named backreference', '(?<x>a)\\k<x>'],
    ['a lookahead', '^/docs(?=/)'],
    ['a negative lookahead', '^(?!/blog)'],
  ])('refuses %s with a message that says why', (_what, pattern) => {
    expect(validatePathRegexes([pattern])).toMatch(/no backreferences or lookahead/);
  });

  it.each([
    // JavaScript spellings RE2 writes differently, and lookbehinds, which re2js runs in linear time.
    ['^/\\u0041bc$', '/Abc', '/abc'],
    ['^/(?<lang>en|fr)/', '/fr/docs', '/de/docs'],
    ['(?<=/docs/)[a-c]$', '/docs/b', '/blog/b'],
    ['(?<!/docs)/b$', '/blog/b', '/docs/b'],
    ['\\/blog\\/', '/blog/x', '/blogx'],
  ])('accepts the JavaScript pattern %s and matches as V8 does', (pattern, matching, other) => {
    expect(validatePathRegexes([pattern])).toBeUndefined();
    const scope = createScope({ startUrl: 'http://site.test/', includePaths: [pattern], crawlEntireDomain: true });
    for (const path of [matching, other]) {
      expect(scope.check(`http://site.test${path}`, 1).ok).toBe(new RegExp(pattern).test(path));
    }
    expect(scope.check(`http://site.test${matching}`, 1).ok).toBe(true);
  });
});
