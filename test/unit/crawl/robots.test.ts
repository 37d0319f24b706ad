import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRobots, ROBOTS_MAX_BYTES, type RobotsFetchText } from '../../../scraper/discovery/robots.js';
import { fetchText, startFixtureServer, type FixtureServer } from './fixture-server.js';

const ORIGIN = 'https://example.com';

function serving(body: string, status = 200): RobotsFetchText {
  return async (url) => (url === `${ORIGIN}/robots.txt` ? { status, body } : undefined);
}

async function robotsFor(body: string, userAgent = 'TrawlBot') {
  return loadRobots(ORIGIN, serving(body), userAgent);
}

// RFC 9309 rules, plus Google's documented examples for wildcards and precedence.
const STAR_ONLY = `
# comment line
User-agent: *
Disallow: /private
Allow: /private/public
Disallow: /*.pdf$
Disallow: /tmp/*/cache
Allow: /page
Disallow: /page
Disallow: /search?
Allow: /$
Disallow: /
Allow: /open
Crawl-delay: 7
Sitemap: https://example.com/sitemap-a.xml
Sitemap: /relative-sitemap.xml
`;

describe('robots.txt rules (RFC 9309 table)', () => {
  it.each([
    ['/', true, 'Allow: /$ is longer than Disallow: /'],
    ['/open', true, 'Allow: /open beats Disallow: /'],
    ['/opener', true, 'prefix match'],
    ['/closed', false, 'Disallow: / applies'],
    ['/private', false, 'exact'],
    ['/private/x', false, 'prefix'],
    ['/private/public/x', true, 'longest match wins'],
    ['/doc.pdf', false, '$ anchors the end'],
    ['/a/b/doc.pdf', false, '* spans slashes'],
    ['/doc.pdf?download=1', false, 'Disallow: / still applies when $ does not'],
    ['/tmp/a/cache', false, '* in the middle'],
    ['/tmp/a/b/cache/x', false, '* matches several segments'],
    ['/page', true, 'Allow wins a tie of equal length'],
    ['/search?q=1', false, 'the query string is part of the match'],
    ['/robots.txt', true, 'robots.txt itself is always allowed'],
  ])('%s → %s (%s)', async (path, allowed) => {
    const robots = await robotsFor(STAR_ONLY);
    expect(robots.isAllowed(`${ORIGIN}${path}`)).toBe(allowed);
  });

  it('reads Crawl-delay and Sitemap lines, resolving relative sitemaps', async () => {
    const robots = await robotsFor(STAR_ONLY);
    expect(robots.source).toBe('parsed');
    expect(robots.crawlDelaySecs()).toBe(7);
    expect(robots.sitemaps()).toEqual([
      'https://example.com/sitemap-a.xml',
      'https://example.com/relative-sitemap.xml',
    ]);
  });

  it('does not govern other origins', async () => {
    const robots = await robotsFor('User-agent: *\nDisallow: /');
    expect(robots.isAllowed('https://example.com/a')).toBe(false);
    expect(robots.isAllowed('http://example.com/a')).toBe(true);
    expect(robots.isAllowed('https://other.com/a')).toBe(true);
  });
});

describe('robots.txt user-agent groups', () => {
  const groups = `
User-agent: *
Disallow: /

User-agent: OtherBot
User-agent: trawlbot
Allow: /
Disallow: /no-trawl
Crawl-delay: 2
`;

  it('uses our group, matched case-insensitively, instead of *', async () => {
    const robots = await robotsFor(groups);
    expect(robots.isAllowed(`${ORIGIN}/anything`)).toBe(true);
    expect(robots.isAllowed(`${ORIGIN}/no-trawl/x`)).toBe(false);
    expect(robots.crawlDelaySecs()).toBe(2);
  });

  it('accepts a product token with a version', async () => {
    const robots = await robotsFor(groups, 'TrawlBot/1.0');
    expect(robots.isAllowed(`${ORIGIN}/anything`)).toBe(true);
  });

  it('falls back to * for an agent without a group', async () => {
    const robots = await robotsFor(groups, 'SomeoneElse');
    expect(robots.isAllowed(`${ORIGIN}/anything`)).toBe(false);
  });

  it('honours a FirecrawlAgent group when ours is absent', async () => {
    const robots = await robotsFor(`
User-agent: *
Allow: /

User-agent: FirecrawlAgent
Disallow: /no-firecrawl
Crawl-delay: 4
`);
    expect(robots.isAllowed(`${ORIGIN}/no-firecrawl/page`)).toBe(false);
    expect(robots.isAllowed(`${ORIGIN}/fine`)).toBe(true);
    expect(robots.crawlDelaySecs()).toBe(4);
  });

  it('blocks us when a site blocks FireCrawlAgent entirely', async () => {
    const robots = await robotsFor('User-agent: FireCrawlAgent\nDisallow: /\n');
    expect(robots.isAllowed(`${ORIGIN}/`)).toBe(false);
  });

  it('merges our group and the FirecrawlAgent group, ignoring *', async () => {
    const robots = await robotsFor(`
User-agent: TrawlBot
Disallow: /a

User-agent: *
Disallow: /c

User-agent: FirecrawlAgent # the Firecrawl crawler
Disallow: /b
`);
    expect(robots.isAllowed(`${ORIGIN}/a`)).toBe(false);
    expect(robots.isAllowed(`${ORIGIN}/b`)).toBe(false);
    expect(robots.isAllowed(`${ORIGIN}/c`)).toBe(true);
  });

  it('does not confuse a longer agent name with FirecrawlAgent', async () => {
    const robots = await robotsFor('User-agent: FirecrawlAgentX\nDisallow: /\n');
    expect(robots.isAllowed(`${ORIGIN}/`)).toBe(true);
  });

  it('treats an empty Disallow as allowing everything', async () => {
    const robots = await robotsFor('User-agent: *\nDisallow:\n');
    expect(robots.isAllowed(`${ORIGIN}/x`)).toBe(true);
    expect(robots.crawlDelaySecs()).toBeUndefined();
  });
});

describe('robots.txt fetch outcomes', () => {
  it.each([
    ['404', { status: 404, body: 'nope' }, 'unavailable', true],
    ['401', { status: 401, body: '' }, 'unavailable', true],
    ['429', { status: 429, body: '' }, 'unreachable', false],
    ['500', { status: 500, body: '' }, 'unreachable', false],
    ['503', { status: 503, body: 'User-agent: *\nAllow: /' }, 'unreachable', false],
    ['no answer', undefined, 'unreachable', false],
    ['an HTML page', { status: 200, body: '<!doctype html><html><body>Home</body></html>' }, 'not-robots-txt', true],
    ['a JSON body', { status: 200, body: ' {"error":"not found"}' }, 'not-robots-txt', true],
    ['an XML body', { status: 200, body: '\uFEFF<?xml version="1.0"?><error/>' }, 'not-robots-txt', true],
  ] as const)('%s → %s', async (_name, response, source, allowed) => {
    const robots = await loadRobots(ORIGIN, async () => response, 'TrawlBot');
    expect(robots.source).toBe(source);
    expect(robots.isAllowed(`${ORIGIN}/page`)).toBe(allowed);
    expect(robots.sitemaps()).toEqual([]);
    expect(robots.crawlDelaySecs()).toBeUndefined();
  });

  it('says why everything is disallowed', async () => {
    const robots = await loadRobots(ORIGIN, async () => ({ status: 503, body: '' }), 'TrawlBot');
    expect(robots.reason).toMatch(/503.*disallowing all/);
    const thrown = await loadRobots(ORIGIN, () => Promise.reject(new Error('ECONNREFUSED')), 'TrawlBot');
    expect(thrown.source).toBe('unreachable');
    expect(thrown.reason).toMatch(/could not be fetched/);
  });

  it('fetches <origin>/robots.txt whatever path the origin is given with', async () => {
    const asked: string[] = [];
    await loadRobots('https://example.com/some/page?x=1', async (url) => {
      asked.push(url);
      return { status: 404, body: '' };
    }, 'TrawlBot');
    expect(asked).toEqual(['https://example.com/robots.txt']);
  });

  it('parses only the first 500 KiB', async () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(Math.ceil(ROBOTS_MAX_BYTES / 1000) + 50);
    const robots = await robotsFor(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    expect(robots.isAllowed(`${ORIGIN}/early`)).toBe(false);
    expect(robots.isAllowed(`${ORIGIN}/late`)).toBe(true);
  });
});

describe('robots.txt over HTTP', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      '/robots.txt': { body: 'User-agent: *\nDisallow: /private\nSitemap: {{origin}}/sitemap.xml\n', contentType: 'text/plain' },
    });
  });
  afterAll(() => server.close());

  it('parses a served file', async () => {
    const robots = await loadRobots(server.origin, fetchText, 'TrawlBot');
    expect(robots.source).toBe('parsed');
    expect(robots.isAllowed(`${server.origin}/private/a`)).toBe(false);
    expect(robots.isAllowed(`${server.origin}/public`)).toBe(true);
    expect(robots.sitemaps()).toEqual([`${server.origin}/sitemap.xml`]);
  });

  it('allows everything on 404 and disallows everything on 500', async () => {
    const missing = await startFixtureServer({});
    const broken = await startFixtureServer({ '/robots.txt': { status: 500, body: 'oops' } });
    try {
      const allowAll = await loadRobots(missing.origin, fetchText, 'TrawlBot');
      expect(allowAll.isAllowed(`${missing.origin}/anything`)).toBe(true);
      const denyAll = await loadRobots(broken.origin, fetchText, 'TrawlBot');
      expect(denyAll.isAllowed(`${broken.origin}/anything`)).toBe(false);
      expect(denyAll.reason).toContain('500');
    } finally {
      await missing.close();
      await broken.close();
    }
  });
});

describe('loadRobots input', () => {
  it('rejects an invalid origin with INVALID_URL', async () => {
    await expect(loadRobots('not an origin', serving(''), 'TrawlBot')).rejects.toMatchObject({ code: 'INVALID_URL' });
  });
});
