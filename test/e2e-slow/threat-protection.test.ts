/**
 * Threat protection on the real stack: validation, the 403 rules, team policy by admin CLI and
 * API, override merging, whitelist over blacklist, globs and TLDs, the threshold and its credits,
 * crawls that meet blocked pages, redirects and browser navigations to blocked hosts, and the
 * failure policy with an HTTP classifier that is down.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from '../e2e/context.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();

let site: http.Server;
let port: number;
const hits: string[] = [];
const at = (host: string, path = '/') => `http://${host}.localhost:${port}${path}`;

const html = (body: string) => `<html><head><title>Page</title></head><body><article><h1>Page</h1><p>${body} with enough words to count as content for the scraper here.</p></article></body></html>`;

async function team(name: string, policy?: Record<string, unknown>, extra: string[] = []) {
  const key = await createKeyWithCli(databaseUrl, name, extra);
  if (policy) await runAdmin(databaseUrl, ['threat-protection', 'set', name, '--policy', JSON.stringify(policy)]);
  return apiClient(apiUrl, key);
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push(`${host}${path}`);
    if (path === '/redirect') return res.writeHead(302, { location: at('evil', '/landing') }).end();
    if (path === '/links') {
      const links = [at('good', '/b'), at('good', '/redirect'), at('evil', '/x'), at('cdn.evil', '/y'), at('other', '/c')];
      return res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">${l}</a>`).join(' ')));
    }
    if (path === '/js-redirect') {
      return res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>Moving on</p><script>location.href = ${JSON.stringify(at('evil', '/landing'))}</script></body></html>`);
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(html(`${host}${path}`));
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  port = (site.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
});

const scrape = (api: ReturnType<typeof apiClient>, url: string, extra: Record<string, unknown> = {}) =>
  api('/v2/scrape', { body: { url, formats: ['markdown'], maxAge: 0, ...extra } });

describe('validation and the 403 rules', () => {
  it('validates every field as the seed says, with details', async () => {
    const api = await team('tp-validation');
    const bad = [
      { riskScoreThreshold: 101 },
      { riskScoreThreshold: -1 },
      { blacklist: Array.from({ length: 1001 }, (_, i) => `d${i}.com`) },
      { whitelist: ['https://a.com'] },
      { blacklist: ['a.com/path'] },
      { blacklist: ['a.com:8080'] },
      { blockedTlds: ['COM'] },
      { blockedTlds: ['.zip'] },
      { mode: 'strict' },
      { failurePolicy: 'maybe' },
    ];
    for (const threatProtection of bad) {
      const res = await scrape(api, at('good'), { threatProtection });
      expect(res.status, JSON.stringify(threatProtection).slice(0, 80)).toBe(400);
      expect(res.body.details).toBeDefined();
    }
  });

  it('answers 403 without the feature, with overrides disabled, and for mode off when enforced', async () => {
    const none = await team('tp-none');
    const off = await scrape(none, at('good'), { threatProtection: { mode: 'normal' } });
    expect(off.status).toBe(403);
    expect(off.body.error).toContain('not enabled');

    const locked = await team('tp-locked', { enabled: true, allowRequestOverrides: false });
    const refused = await scrape(locked, at('good'), { threatProtection: { riskScoreThreshold: 90 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('overrides');

    const enforced = await team('tp-enforced', { enabled: true, enforced: true });
    const offMode = await enforced('/v2/crawl', { body: { url: at('good'), scrapeOptions: { threatProtection: { mode: 'off' } } } });
    expect(offMode.status).toBe(403);
    expect(offMode.body.error).toContain('enforced');
    expect((await scrape(enforced, at('good'), { threatProtection: { riskScoreThreshold: 90 } })).status).toBe(200);
  });
});

describe('every endpoint that fetches', () => {
  const endpoints: [string, (tp: Record<string, unknown>) => Record<string, unknown>][] = [
    ['/v1/scrape', (threatProtection) => ({ url: at('good'), threatProtection })],
    ['/v2/crawl', (threatProtection) => ({ url: at('good'), scrapeOptions: { threatProtection } })],
    ['/v2/batch/scrape', (threatProtection) => ({ urls: [at('good')], threatProtection })],
    ['/v2/map', (threatProtection) => ({ url: at('good'), threatProtection })],
    ['/v2/search', (threatProtection) => ({ query: 'page', scrapeOptions: { formats: ['markdown'], threatProtection } })],
    ['/v2/extract', (threatProtection) => ({ urls: [at('good')], prompt: 'the title', threatProtection })],
    ['/v2/agent', (threatProtection) => ({ prompt: 'the title', threatProtection })],
  ];

  it('validates the override with details, and refuses it for a team without the feature', async () => {
    const api = await team('tp-endpoints');
    for (const [path, body] of endpoints) {
      const invalid = await api(path, { body: body({ blockedTlds: ['.zip'] }) });
      expect(invalid.status, path).toBe(400);
      expect(JSON.stringify(invalid.body.details), path).toContain('blockedTlds');
      const refused = await api(path, { body: body({ mode: 'normal' }) });
      expect(refused.status, path).toBe(403);
      expect(refused.body.error, path).toContain('not enabled');
    }
  });

  it('refuses overrides on every endpoint when the team disabled them, and mode off when enforced', async () => {
    const locked = await team('tp-endpoints-locked', { enabled: true, allowRequestOverrides: false });
    const enforced = await team('tp-endpoints-enforced', { enabled: true, enforced: true });
    for (const [path, body] of endpoints) {
      expect((await locked(path, { body: body({ whitelist: ['good.localhost'] }) })).status, path).toBe(403);
      const off = await enforced(path, { body: body({ mode: 'off' }) });
      expect(off.status, path).toBe(403);
      expect(off.body.error, path).toContain('enforced');
    }
  });
});

describe('policy', () => {
  it('is set and shown by the admin CLI, and read and replaced by admin keys over the API', async () => {
    const api = await team('tp-admin', { enabled: true, blacklist: ['evil.localhost'] }, ['--scopes', 'admin']);
    const { stdout } = await runAdmin(databaseUrl, ['threat-protection', 'show', 'tp-admin']);
    expect(JSON.parse(stdout)).toMatchObject({ enabled: true, mode: 'normal', riskScoreThreshold: 75, blacklist: ['evil.localhost'], failurePolicy: 'closed' });
    expect((await api('/v2/team/threat-protection')).body.data).toMatchObject({ enabled: true, blacklist: ['evil.localhost'] });
    const put = await api('/v2/team/threat-protection', { method: 'PUT', body: { enabled: true, mode: 'off', blockedTlds: ['zip'] } });
    expect(put.body.data).toMatchObject({ mode: 'off', blacklist: [], blockedTlds: ['zip'] });
    const scoped = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'tp-admin', ['--scopes', 'scrape']));
    expect((await scoped('/v2/team/threat-protection')).status).toBe(403);
    // Admin is opt-in: a key made without --scopes may not change the team's policy.
    const unscoped = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'tp-admin'));
    expect((await unscoped('/v2/team/threat-protection', { method: 'PUT', body: { enabled: false } })).status).toBe(403);
    expect((await api('/v2/team/threat-protection', { method: 'PUT', body: { enabled: true, riskScoreThreshold: 200 } })).status).toBe(400);
  });

  it('blocks blacklisted hosts with 403 and the rule; the whitelist wins; request fields replace the team’s for that request only', async () => {
    const api = await team('tp-lists', { enabled: true, mode: 'off', blacklist: ['evil.localhost', '*.ads.localhost'] });
    hits.length = 0;
    const blocked = await scrape(api, at('evil'));
    expect(blocked.status).toBe(403);
    expect(blocked.body).toMatchObject({ success: false, code: 'THREAT_PROTECTION_BLOCKED', details: { rule: 'blacklist', host: 'evil.localhost' } });
    expect(hits).toEqual([]);
    expect((await scrape(api, at('x.ads'))).status).toBe(403);
    // `*.ads.localhost` leaves out the apex.
    expect((await scrape(api, at('ads'))).status).toBe(200);
    const whitelisted = await scrape(api, at('evil'), { threatProtection: { whitelist: ['evil.localhost'] } });
    expect(whitelisted.status).toBe(200);
    // The team's blacklist still applies to other hosts in that request's policy.
    expect((await scrape(api, at('x.ads'), { threatProtection: { whitelist: ['evil.localhost'] } })).status).toBe(403);
    expect((await scrape(api, at('evil'))).status).toBe(403);
    const tld = await scrape(api, at('good'), { threatProtection: { blockedTlds: ['localhost'] } });
    expect(tld.body.details).toMatchObject({ rule: 'blockedTld' });
  });

  it("matches a team's adversarial glob in linear time, so another team's scrape is not held up by it", async () => {
    // With `*` as a backtracking `.*`, this glob on a 70-character host took minutes of the shared
    // worker's event loop per URL (7 stars: 39 s on 64 characters); both scrapes would outlive the test.
    const glob = `${'*a'.repeat(7)}*b`;
    const attacker = await team('tp-glob-attacker', { enabled: true, mode: 'off', blacklist: [glob] });
    const bystander = await team('tp-glob-bystander');
    const [own, other] = await Promise.all([scrape(attacker, at('a'.repeat(60))), scrape(bystander, at('good'))]);
    expect(own.status).toBe(200);
    expect(other.status).toBe(200);
    const tooMany = await team('tp-glob-cap', undefined, ['--scopes', 'admin']);
    const refused = await tooMany('/v2/team/threat-protection', { method: 'PUT', body: { enabled: true, blacklist: [`${'*a'.repeat(9)}`] } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("at most 8 '*'");
  });

  it('blocks at or above the threshold in normal mode and charges 2 credits per URL scanned', async () => {
    const api = await team('tp-score', { enabled: true, mode: 'normal', riskScoreThreshold: 40 });
    // An IP-literal host scores 40 in the built-in heuristics.
    const ip = `http://127.0.0.1:${port}/page`;
    const blocked = await scrape(api, ip);
    expect(blocked.status).toBe(403);
    expect(blocked.body.details).toMatchObject({ rule: 'riskScore', score: 40, threshold: 40 });
    const allowed = await scrape(api, ip, { threatProtection: { riskScoreThreshold: 41 } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.metadata.creditsUsed).toBe(3);
  });

  it('refuses a redirect to a blacklisted host before following it', async () => {
    const api = await team('tp-redirect', { enabled: true, mode: 'off', blacklist: ['evil.localhost'] });
    hits.length = 0;
    const res = await scrape(api, at('good', '/redirect'));
    expect(res.status).toBe(403);
    expect(res.body.details).toMatchObject({ rule: 'blacklist', url: at('evil', '/landing') });
    expect(hits).toEqual(['good.localhost/redirect']);
  });

  it('refuses a browser navigation to a blacklisted host', async () => {
    const api = await team('tp-browser', { enabled: true, mode: 'off', blacklist: ['evil.localhost'] });
    hits.length = 0;
    const res = await scrape(api, at('good', '/js-redirect'), { formats: ['markdown', 'screenshot'] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('THREAT_PROTECTION_BLOCKED');
    expect(hits.filter((h) => h.startsWith('evil.'))).toEqual([]);
  });

  it('refuses a server redirect to a blacklisted host in the browser before the hop is sent', async () => {
    const api = await team('tp-browser-redirect', { enabled: true, mode: 'off', blacklist: ['evil.localhost'] });
    hits.length = 0;
    const res = await scrape(api, at('good', '/redirect'), { formats: ['markdown', 'screenshot'] });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'THREAT_PROTECTION_BLOCKED', details: { rule: 'blacklist', url: at('evil', '/landing') } });
    expect(hits).toContain('good.localhost/redirect');
    expect(hits.filter((h) => h.startsWith('evil.'))).toEqual([]);
  });
});

describe('jobs that meet blocked pages', () => {
  const blockedCodes = (errors: { url: string; code: string }[]) =>
    errors.filter((e) => e.code === 'THREAT_PROTECTION_BLOCKED').map((e) => e.url).sort();

  it('a crawl never contacts a blocked host (not even its robots.txt), lists its pages and redirects in /errors, and charges 2 credits per URL scanned', async () => {
    // Hosts here score 0 in the built-in heuristics, so every page is scanned and none blocked by score.
    const api = await team('tp-crawl-own', { enabled: true, mode: 'normal', riskScoreThreshold: 90, blacklist: ['evil.localhost'] });
    hits.length = 0;
    const started = await api('/v2/crawl', { body: { url: at('good', '/links'), crawlEntireDomain: true, allowExternalLinks: true, sitemap: 'skip', limit: 20 } });
    expect(started.status).toBe(200);
    const done = await waitForJobEnd(api, 'crawl', started.body.id);
    expect(done).toMatchObject({ status: 'completed', completed: 3 });
    expect(done.creditsUsed).toBe(3 * 3);
    const errors = await api(`/v2/crawl/${started.body.id}/errors`);
    expect(blockedCodes(errors.body.errors)).toEqual([at('cdn.evil', '/y'), at('evil', '/x'), at('good', '/redirect')].sort());
    expect(hits.filter((h) => h.includes('evil.'))).toEqual([]);
    expect(hits).toContain('good.localhost/redirect');
  });

  it('a batch skips its blocked URLs, lists them in /errors and goes on', async () => {
    const api = await team('tp-batch', { enabled: true, mode: 'off', blockedTlds: ['localhost'], whitelist: ['good.localhost'] });
    hits.length = 0;
    const started = await api('/v2/batch/scrape', { body: { urls: [at('good', '/1'), at('evil', '/2'), at('good', '/3')], formats: ['markdown'] } });
    expect(started.status).toBe(200);
    const done = await waitForJobEnd(api, 'batch/scrape', started.body.id);
    expect(done).toMatchObject({ status: 'completed', completed: 2, creditsUsed: 2 });
    const errors = await api(`/v2/batch/scrape/${started.body.id}/errors`);
    expect(blockedCodes(errors.body.errors)).toEqual([at('evil', '/2')]);
    expect(hits.filter((h) => h.startsWith('evil.'))).toEqual([]);
    expect(hits).toEqual(expect.arrayContaining(['good.localhost/1', 'good.localhost/3']));
  });

  it('a map refuses a blocked start page or its redirect, and charges 2 credits for a scanned one', async () => {
    const api = await team('tp-map', { enabled: true, mode: 'off', blacklist: ['evil.localhost'] });
    hits.length = 0;
    const blocked = await api('/v2/map', { body: { url: at('evil'), sitemap: 'skip' } });
    expect(blocked.status).toBe(403);
    expect(blocked.body).toMatchObject({ code: 'THREAT_PROTECTION_BLOCKED', details: { rule: 'blacklist' } });
    const redirected = await api('/v2/map', { body: { url: at('good', '/redirect'), sitemap: 'skip' } });
    expect(redirected.status).toBe(403);
    expect(redirected.body.details).toMatchObject({ rule: 'blacklist', url: at('evil', '/landing') });
    expect(hits.filter((h) => h.includes('evil.'))).toEqual([]);

    const remaining = async () => (await api('/v2/team/credit-usage')).body.data.remainingCredits as number;
    const before = await remaining();
    const scanned = await api('/v2/map', { body: { url: at('good', '/links'), sitemap: 'skip', threatProtection: { mode: 'normal' } } });
    expect(scanned.status).toBe(200);
    expect(before - (await remaining())).toBe(2);
    const listed = await api('/v2/map', { body: { url: at('good', '/links'), sitemap: 'skip' } });
    expect(listed.status).toBe(200);
    expect(before - (await remaining())).toBe(2);
  });
});

describe('a crawl that meets blocked pages', () => {
  let crawlSite: CrawlSite;
  beforeAll(async () => {
    crawlSite = await startCrawlSite();
  });
  afterAll(async () => {
    await crawlSite?.close();
  });

  it('never fetches them, lists them in /errors with the reason, and goes on', async () => {
    const api = await team('tp-crawl', { enabled: true, mode: 'off', blacklist: ['other.localhost', 'blog.site.localhost'] });
    const started = await api('/v2/crawl', { body: { url: crawlSite.url('/'), allowExternalLinks: true, allowSubdomains: true, sitemap: 'skip', limit: 30 } });
    expect(started.status).toBe(200);
    const done = await waitForJobEnd(api, 'crawl', started.body.id);
    expect(done.status).toBe('completed');
    expect(done.completed).toBeGreaterThan(3);
    const errors = await api(`/v2/crawl/${started.body.id}/errors`);
    const blocked = (errors.body.errors as { url: string; code: string }[]).filter((e) => e.code === 'THREAT_PROTECTION_BLOCKED');
    expect(blocked.map((e) => new URL(e.url).hostname).sort()).toEqual(['blog.site.localhost', 'other.localhost']);
    expect(crawlSite.requests.filter((r) => r.host.startsWith('other.') || r.host.startsWith('blog.'))).toEqual([]);
  });
});

describe('an HTTP classifier', () => {
  let classifier: http.Server;
  let classifierUp = true;
  let stack: Stack;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    classifier = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (!classifierUp) return res.writeHead(503).end();
        const { url } = JSON.parse(body) as { url: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ score: url.includes('phish') ? 95 : 5, categories: [] }));
      });
    });
    classifier.listen(0, '127.0.0.1');
    await once(classifier, 'listening');
    const classifierUrl = `http://127.0.0.1:${(classifier.address() as AddressInfo).port}/classify`;
    stack = await startStack({
      databaseUrl,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      env: { LOG_LEVEL: 'warn', TEMPORAL_TASK_QUEUE: 'trawl-threat', ALLOW_PRIVATE_NETWORK: 'true', THREAT_CLASSIFIER: 'http', THREAT_CLASSIFIER_URL: classifierUrl },
      log: () => undefined,
    });
    const key = await createKeyWithCli(databaseUrl, 'tp-http');
    await runAdmin(databaseUrl, ['threat-protection', 'set', 'tp-http', '--policy', JSON.stringify({ enabled: true, mode: 'normal' })]);
    api = apiClient(stack.apiUrl, key);
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => classifier?.close(resolve));
  });

  it('blocks what it scores high and lets the rest through', async () => {
    const phish = await scrape(api, at('good', '/phish-login'));
    expect(phish.status).toBe(403);
    expect(phish.body.details).toMatchObject({ rule: 'riskScore', score: 95 });
    expect((await scrape(api, at('good', '/fine'))).status).toBe(200);
  });

  it('follows the failure policy when it is down: closed blocks, open allows and says so', async () => {
    classifierUp = false;
    try {
      const closed = await scrape(api, at('good', '/down-closed'));
      expect(closed.status).toBe(403);
      expect(closed.body.details).toMatchObject({ rule: 'classifierUnavailable' });
      const open = await scrape(api, at('good', '/down-open'), { threatProtection: { failurePolicy: 'open' } });
      expect(open.status).toBe(200);
      expect(open.body.data.warning).toContain('failurePolicy open');
    } finally {
      classifierUp = true;
    }
  });
});
