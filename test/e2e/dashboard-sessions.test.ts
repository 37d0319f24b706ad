/**
 * Dashboard sessions, CSRF and team isolation on the real stack, in real Chromium: a form post
 * without the session's token is refused, a revoked admin key ends its session, only admin keys
 * sign in, and a team's admin never sees, opens or changes another team's keys, usage or jobs.
 */
import Firecrawl from '@mendable/firecrawl-js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { apiClient } from '../helpers/api-client.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { launchBrowser, signInWithForm, watchedContext, WIDTHS } from '../helpers/dashboard-browser.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
const dashboard = `${apiUrl}${loadConfig({}).dashboard.path}`;
const desktop = WIDTHS[0];
let browser: Browser;
let site: CrawlSite;

beforeAll(async () => {
  [browser, site] = await Promise.all([launchBrowser(), startCrawlSite()]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** The `_csrf` value of the first form on the page. */
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

describe('dashboard sessions and CSRF', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie and refuses form posts without the token', async () => {
    const team = `csrf-${Date.now()}`;
    const key = await createKeyWithCli(databaseUrl, team, ['--scopes', 'admin']);
    const w = await watchedContext(browser, desktop);
    try {
      await signInWithForm(w.page, dashboard, key);
      const cookie = (await w.context.cookies()).find((c) => c.name === 'trawl_session')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
      const teamUrl = w.page.url();
      const before = await w.page.locator('table[data-testid="keys"] tbody tr').count();

      // The session's cookie rides along (same context), but the token does not.
      const missing = await w.page.request.post(`${teamUrl}/keys`, { form: { scopes: 'scrape' }, maxRedirects: 0 });
      expect(missing.status()).toBe(403);
      const wrong = await w.page.request.post(`${teamUrl}/keys`, { form: { scopes: 'scrape', _csrf: 'x'.repeat(43) }, maxRedirects: 0 });
      expect(wrong.status()).toBe(403);
      // The same post with the page's token goes through: the refusals above were the token's doing.
      const token = csrfOf(await w.page.content());
      const good = await w.page.request.post(`${teamUrl}/keys`, { form: { scopes: 'scrape', _csrf: token }, maxRedirects: 0 });
      expect(good.status()).toBe(200);
      await w.page.reload();
      expect(await w.page.locator('table[data-testid="keys"] tbody tr').count()).toBe(before + 1);

      // Without any session, a post is refused before anything else.
      const anonymous = await fetch(`${teamUrl}/keys`, { method: 'POST', body: new URLSearchParams({ _csrf: token }), redirect: 'manual' });
      expect(anonymous.status).toBe(401);
      // The sign-in form has its own token (double-submit cookie).
      const blind = await fetch(`${dashboard}/sign-in`, { method: 'POST', body: new URLSearchParams({ key }), redirect: 'manual' });
      expect(blind.status).toBe(403);
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('lets only admin-scoped keys sign in', async () => {
    const key = await createKeyWithCli(databaseUrl, `scoped-${Date.now()}`, ['--scopes', 'scrape,crawl']);
    const w = await watchedContext(browser, desktop);
    try {
      await w.page.goto(`${dashboard}/sign-in`);
      await w.page.getByLabel('API key with the admin scope').fill(key);
      await w.page.getByRole('button', { name: 'Sign in' }).click();
      await expect(w.page.getByRole('alert').innerText()).resolves.toContain('no admin scope');
      expect((await w.context.cookies()).some((c) => c.name === 'trawl_session')).toBe(false);
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('ends the session of an admin key once it is revoked', async () => {
    const key = await createKeyWithCli(databaseUrl, `revoked-${Date.now()}`, ['--scopes', 'admin']);
    const w = await watchedContext(browser, desktop);
    try {
      await signInWithForm(w.page, dashboard, key);
      const teamUrl = w.page.url();
      expect(new URL(teamUrl).pathname).toMatch(/^\/dashboard\/teams\/[0-9a-f-]{36}$/);
      await runAdmin(databaseUrl, ['keys', 'revoke', key.slice(0, 11)]);
      await w.page.goto(teamUrl);
      expect(new URL(w.page.url()).pathname).toBe('/dashboard/sign-in');
      const token = 'x'.repeat(43);
      const post = await w.page.request.post(`${teamUrl}/keys`, { form: { _csrf: token }, maxRedirects: 0 });
      expect(post.status()).toBe(401);
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

describe('team isolation', () => {
  it("never shows a team's admin another team's keys, usage or jobs", async () => {
    const stamp = Date.now();
    const [ownerA, adminB] = await Promise.all([
      createKeyWithCli(databaseUrl, `iso-a-${stamp}`),
      createKeyWithCli(databaseUrl, `iso-b-${stamp}`, ['--scopes', 'admin']),
    ]);
    // Team A has a job, credits and a key; team B has nothing but its admin key.
    const a = new Firecrawl({ apiKey: ownerA, apiUrl });
    const scraped = await a.scrape(site.url('/docs/c'), { formats: ['markdown'] });
    const jobA = scraped.metadata!.scrapeId!;
    const teamA = (await apiClient(apiUrl, ownerA)('/v2/team/credit-usage')).body;
    expect(teamA.success).toBe(true);

    const w = await watchedContext(browser, desktop);
    try {
      await signInWithForm(w.page, dashboard, adminB);
      const seen: string[] = [];
      for (const path of ['/teams', '/jobs', '/jobs?kind=scrape', '/health']) {
        await w.page.goto(`${dashboard}${path}`);
        seen.push(await w.page.content());
      }
      await w.page.goto(`${dashboard}/`);
      seen.push(await w.page.content());
      const all = seen.join('\n');
      expect(all).toContain(`iso-b-${stamp}`);
      expect(all).not.toContain(`iso-a-${stamp}`);
      expect(all).not.toContain(ownerA.slice(0, 11));
      expect(all).not.toContain(jobA);
      // No team filter reaches beyond the viewer's own team, and no plan form is offered.
      expect(await w.page.locator('form[action$="/plan"]').count()).toBe(0);

      // Team A's pages, by id, are not found; its job and status JSON neither.
      const idA = await teamIdOf(`iso-a-${stamp}`);
      w.allow(404, idA);
      w.allow(404, jobA);
      await w.page.goto(`${dashboard}/teams/${idA}`);
      expect(await w.page.getByRole('heading', { name: 'Not found' }).isVisible()).toBe(true);
      expect(await w.page.content()).not.toContain(`iso-a-${stamp}`);
      await w.page.goto(`${dashboard}/jobs/${jobA}`);
      expect(await w.page.getByRole('heading', { name: 'Not found' }).isVisible()).toBe(true);
      expect((await w.page.request.get(`${dashboard}/jobs/${jobA}/status.json`)).status()).toBe(404);
      expect((await w.page.request.get(`${dashboard}/jobs?team=${idA}`)).ok()).toBe(true);
      expect(await (await w.page.request.get(`${dashboard}/jobs?team=${idA}`)).text()).not.toContain(jobA);

      // Nor can it change them: revoking A's key, creating one, or setting a plan is refused.
      await w.page.goto(`${dashboard}/`);
      const token = csrfOf(await w.page.content());
      const keyIdA = await keyIdOf(ownerA.slice(0, 11));
      for (const path of [`/teams/${idA}/keys/${keyIdA}/revoke`, `/teams/${idA}/keys`, `/teams/${idA}/plan`]) {
        const res = await w.page.request.post(`${dashboard}${path}`, { form: { _csrf: token, credits: '0' }, maxRedirects: 0 });
        expect(res.status(), path).toBe(404);
      }
      const stillWorks = await a.scrape(site.url('/docs/d'), { formats: ['markdown'] });
      expect(stillWorks.markdown).toContain('Docs D');
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

async function teamIdOf(name: string): Promise<string> {
  const { stdout } = await runAdmin(databaseUrl, ['teams', 'show', name]);
  return /\(([0-9a-f-]{36})\)/.exec(stdout)![1]!;
}

async function keyIdOf(prefix: string): Promise<string> {
  const { stdout } = await runAdmin(databaseUrl, ['keys', 'list']);
  return stdout.split('\n').find((l) => l.includes(`${prefix}…`))!.split(/\s+/)[0]!;
}
