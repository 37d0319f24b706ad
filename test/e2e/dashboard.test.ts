/**
 * The dashboard in real Chromium against the real stack, at 1280 px and 390 px: an operator signs
 * in, creates a team and a key, uses the key with the official SDK, follows a crawl to its end,
 * opens its workflow in the Temporal UI, sees the credits in the usage chart, sets a plan that
 * makes the SDK get 402, and revokes the key so the SDK gets 401. Every page must load with no
 * console error, failed request or error answer, fit the width, and leave a screenshot in
 * test/artifacts/.
 */
import Firecrawl from '@mendable/firecrawl-js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { horizontalOverflow, launchBrowser, signInWithForm, submitAndLoad, watchedContext, WIDTHS, type WatchedContext } from '../helpers/dashboard-browser.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
// The stack runs with the defaults: the dashboard at /dashboard, operators in team "admin".
const defaults = loadConfig({});
const dashboard = `${apiUrl}${defaults.dashboard.path}`;
const temporalUi = defaults.dashboard.temporalUiUrl;
let browser: Browser;
let site: CrawlSite;
let operatorKey: string;

beforeAll(async () => {
  [browser, site, operatorKey] = await Promise.all([launchBrowser(), startCrawlSite(), createKeyWithCli(databaseUrl, defaults.dashboard.adminTeam, ['--scopes', 'admin'])]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function expectFits(w: WatchedContext) {
  expect(await horizontalOverflow(w.page)).toBeLessThanOrEqual(0);
}

describe.each(WIDTHS)('the dashboard at $width px', (width) => {
  it('manages a team and a key, follows a crawl, charts its credits, and enforces plan and revocation on the SDK', async () => {
    const w = await watchedContext(browser, width, { clipboard: true });
    const { page } = w;
    page.on('dialog', (dialog) => void dialog.accept());
    const teamName = `dash-${width.name}-${Date.now()}`;
    try {
      // Sign in.
      await page.goto(`${dashboard}/`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
      await w.screenshot('sign-in');
      await signInWithForm(page, dashboard, operatorKey);
      await expect(page.getByRole('heading', { name: 'Teams' }).isVisible()).resolves.toBe(true);

      // Create a team, then a key: shown once, with a copy button that copies it.
      await page.getByLabel('New team').fill(teamName);
      await Promise.all([page.waitForURL(/\/teams\/[0-9a-f-]{36}$/), page.getByRole('button', { name: 'Create team' }).click()]);
      const teamUrl = page.url();
      await expect(page.locator('.flash').innerText()).resolves.toContain(teamName);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.getByTestId('new-key').innerText()).trim();
      expect(key).toMatch(/^fc-[0-9a-f]{40}$/);
      await page.getByRole('button', { name: 'Copy' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await w.screenshot('new-key');
      const prefix = key.slice(0, 11);

      // The SDK works with it.
      const firecrawl = new Firecrawl({ apiKey: key, apiUrl });
      const doc = await firecrawl.scrape(site.url('/docs/a'), { formats: ['markdown'] });
      expect(doc.markdown).toContain('Docs A');

      // A crawl, followed live on its page to the end.
      const started = await firecrawl.startCrawl(site.url('/'), { limit: 12, sitemap: 'skip' });
      await page.goto(`${dashboard}/jobs?kind=crawl&page=1`);
      await page.locator(`tr[data-job="${started.id}"] a`).click();
      await page.waitForURL(`${dashboard}/jobs/${started.id}`);
      // /broken fails three times over ~3 s before the crawl can end, so the page opens on a running crawl.
      await expect(page.getByTestId('progress').getAttribute('data-live')).resolves.toBe(`/dashboard/jobs/${started.id}/status.json`);
      await expect.poll(() => page.locator('[data-field="status"]').innerText(), { timeout: 90_000, interval: 500 }).toBe('completed');
      // The page's own script reloaded it when the crawl ended; the reload finishes before the next step.
      await page.waitForLoadState('load');
      const status = await firecrawl.getCrawlStatus(started.id);
      expect(status.status).toBe('completed');
      expect(await page.locator('[data-field="completed"]').innerText()).toBe(String(status.completed));
      expect(await page.getByTestId('robots-blocked').innerText()).toContain('/private/secret');
      expect(await page.getByTestId('errors').innerText()).toContain('/broken');
      await w.screenshot('crawl');
      await expectFits(w);

      // Its workflow in the Temporal UI (the test stack's server is headless: a stand-in answers).
      const link = page.getByTestId('temporal-link');
      const href = await link.getAttribute('href');
      expect(href).toBe(`${temporalUi}/namespaces/default/workflows/crawl-${started.id}`);
      await w.context.route(`${temporalUi}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<title>Temporal UI</title>' }));
      const [popup] = await Promise.all([page.waitForEvent('popup'), link.click()]);
      await popup.waitForLoadState();
      expect(popup.url()).toBe(href);
      await popup.close();

      // The status JSON link answers the API's own figures.
      const json = JSON.parse(await (await page.request.get(`${dashboard}/jobs/${started.id}/status.json`)).text());
      expect(json).toMatchObject({ status: 'completed', completed: status.completed, total: status.total, creditsUsed: status.creditsUsed, workflowId: `crawl-${started.id}` });

      // The usage charts hold the credits just spent: the scrape's and the crawl's, per team and per key.
      const spent = doc.metadata!.creditsUsed! + status.creditsUsed!;
      await page.goto(teamUrl);
      await expect(page.getByTestId('team-credits').getAttribute('data-total')).resolves.toBe(String(spent));
      await expect(page.getByTestId(`key-credits-${prefix}`).getAttribute('data-total')).resolves.toBe(String(spent));
      const today = new Date().toISOString().slice(0, 10);
      await expect(page.locator(`[data-testid="team-credits"] rect[data-day="${today}"]`).getAttribute('data-value')).resolves.toBe(String(spent));
      // The key's last use: set by the SDK's requests (the cells are prefix, scopes, created, last used, state).
      expect(await page.locator(`tr[data-key="${prefix}"] td`).nth(3).innerText()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await w.screenshot('team');
      await expectFits(w);

      // A plan with no credits left: the SDK gets 402, and the refusal is counted.
      await page.getByLabel('Credits per month').fill(String(spent));
      await page.getByLabel('Concurrent pages').fill('3');
      await submitAndLoad(page, () => page.getByRole('button', { name: 'Save plan' }).click());
      await expect(page.locator('.flash').innerText()).resolves.toContain('Plan saved');
      expect(await page.getByTestId('credits-left').innerText()).toBe('0');
      await expect(firecrawl.scrape(site.url('/docs/b'))).rejects.toMatchObject({ status: 402 });
      // Counted after the answer is sent, so the page may need a moment to see it.
      await expect
        .poll(async () => {
          await page.reload();
          return page.getByTestId('refusals').innerText();
        })
        .toBe('1');
      expect(await page.getByLabel('Concurrent pages').inputValue()).toBe('3');

      // Revoke the key: the SDK gets 401.
      await submitAndLoad(page, () => page.locator(`tr[data-key="${prefix}"] button`, { hasText: 'Revoke' }).click());
      expect(await page.locator(`tr[data-key="${prefix}"]`).innerText()).toContain('revoked');
      await expect(firecrawl.scrape(site.url('/docs/b'))).rejects.toMatchObject({ status: 401 });

      // The job list and health pages, at this width too.
      await page.goto(`${dashboard}/jobs`);
      expect(await page.getByTestId('jobs').innerText()).toContain(teamName);
      await w.screenshot('jobs');
      await expectFits(w);
      await page.goto(`${dashboard}/health`);
      expect(await page.getByTestId('verdict').innerText()).toBe('ok');
      expect(await page.locator('tr[data-check="search"]').innerText()).toContain('index');
      await w.screenshot('health');
      await expectFits(w);

      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
