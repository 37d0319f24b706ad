/**
 * GET /openapi.json and the /docs reference page on the real API, rendered in real Chromium: the
 * page loads with no console errors or failed requests, lists the operations, and leaves
 * screenshots in test/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { e2eContext } from './context.js';

const { apiUrl } = e2eContext();
const ARTIFACTS = new URL('../artifacts/', import.meta.url);
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: loadConfig().browser.executablePath,
    args: ['--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
});

describe('API reference', () => {
  it('serves the OpenAPI document without a key', async () => {
    const res = await fetch(`${apiUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v2/scrape', '/v2/crawl', '/v2/batch/scrape', '/v2/map']));
  });

  it.each([
    ['desktop', 1280, 900],
    ['phone', 390, 844],
  ])('renders at %s width with no console errors and no outside requests', async (name, width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('requestfailed', (req) => problems.push(`failed: ${req.url()}`));
    page.on('request', (req) => origins.add(new URL(req.url()).origin));
    try {
      await page.goto(`${apiUrl}/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      const operations = await page.locator('.opblock-summary-path').allInnerTexts();
      const paths = operations.map((p) => p.replace(/\u200b/g, '').trim());
      expect(paths).toEqual(expect.arrayContaining(['/v2/scrape', '/v2/crawl', '/v2/batch/scrape', '/v2/map', '/v1/scrape']));
      await page.screenshot({ path: new URL(`docs-${name}.png`, ARTIFACTS).pathname, fullPage: false });
      expect(problems).toEqual([]);
      expect([...origins].filter((o) => o !== new URL(apiUrl).origin && !o.startsWith('data:'))).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
