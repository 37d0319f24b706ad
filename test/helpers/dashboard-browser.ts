/**
 * Real Chromium for dashboard tests: a context per viewport that records every console error,
 * page error, failed request and error answer, so a test can insist there were none; sign-in
 * through the form; screenshots into test/artifacts/ (gitignored, kept as CI artifacts).
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../../lib/config.js';

export const ARTIFACTS = new URL('../artifacts/', import.meta.url);

export const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
export type Width = (typeof WIDTHS)[number];

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: loadConfig().browser.executablePath,
    args: ['--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export interface WatchedContext {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors, failed requests and 4xx/5xx answers, as readable lines. */
  problems: string[];
  /** Answers with these statuses on URLs containing `urlPart` are expected (a 404 page a test asks for). */
  allow(status: number, urlPart: string): void;
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function watchedContext(browser: Browser, width: Width, options: { clipboard?: boolean } = {}): Promise<WatchedContext> {
  const context = await browser.newContext({ viewport: { width: width.width, height: width.height } });
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const problems: string[] = [];
  const allowed: { status: number; urlPart: string }[] = [];
  const page = await context.newPage();
  context.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    // Chromium logs an expected error answer as a console error too; those are judged below.
    const at = msg.location().url;
    if (/Failed to load resource/.test(msg.text()) && allowed.some((a) => at.includes(a.urlPart))) return;
    problems.push(`console: ${msg.text()} (${at})`);
  });
  context.on('weberror', (err) => problems.push(`page error: ${err.error().message}`));
  context.on('requestfailed', (req) => {
    // A navigation that a reload or a redirect cut short is not a failure of the page.
    if (req.failure()?.errorText === 'net::ERR_ABORTED' && req.isNavigationRequest()) return;
    problems.push(`failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`);
  });
  context.on('response', (res) => {
    if (res.status() < 400) return;
    if (allowed.some((a) => a.status === res.status() && res.url().includes(a.urlPart))) return;
    problems.push(`answer ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  return {
    context,
    page,
    problems,
    allow: (status, urlPart) => void allowed.push({ status, urlPart }),
    screenshot: async (name) => {
      await page.screenshot({ path: new URL(`dashboard-${name}-${width.name}.png`, ARTIFACTS).pathname, fullPage: true });
    },
    close: () => context.close(),
  };
}

/**
 * Runs `click`, which submits a form, and waits until the page it leads to has loaded. The
 * dashboard's forms post and redirect back to the page they are on, so waiting for the URL returns
 * at once, and the test's next navigation cut the new page's stylesheet and script short (seen
 * under load as two failed requests).
 */
export async function submitAndLoad(page: Page, click: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('load'), click()]);
}

/** Signs in through the form and waits for the first page after it. */
export async function signInWithForm(page: Page, dashboardUrl: string, key: string): Promise<void> {
  await page.goto(`${dashboardUrl}/`);
  await page.getByLabel('API key with the admin scope').fill(key);
  await Promise.all([page.waitForURL((url) => !url.pathname.endsWith('/sign-in')), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** The page must not scroll sideways: everything fits the viewport's width. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
