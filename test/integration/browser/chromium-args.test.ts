import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserPool } from '../../../browser/browser-pool.js';
import { BROWSER_MARKER_ENV, findChromiumProcesses, type ChromiumProcess } from '../../../browser/chromium-processes.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer();
});

afterAll(async () => {
  await site?.close();
});

function disabledFeatures(chromiumProcess: ChromiumProcess): Set<string> {
  const values = [...chromiumProcess.cmdline.matchAll(/--disable-features=(\S+)/g)].map((match) => match[1]!);
  // Chromium honours the last one.
  return new Set(values.at(-1)?.split(',') ?? []);
}

/**
 * The features a browser's helper processes run with: Chromium passes its effective feature
 * list on to them, so this is what it applied rather than what it was asked for.
 */
function effectiveDisabledFeatures(processes: ChromiumProcess[]): Set<string> {
  const helper = processes.find((p) => p.cmdline.includes('--utility-sub-type=network.mojom.NetworkService'));
  if (!helper) throw new Error('no network service process found');
  return disabledFeatures(helper);
}

describe('Chromium launch flags', () => {
  it("keep every feature Playwright disables by default while adding the pool's own", async () => {
    const marker = `playwright-defaults-${randomUUID()}`;
    const bare = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      env: { ...process.env, [BROWSER_MARKER_ENV]: marker },
    });
    let playwrightDefaults: Set<string>;
    try {
      // A navigation needs the network service.
      await (await bare.newPage()).goto(`${site.url}/plain`);
      playwrightDefaults = effectiveDisabledFeatures(findChromiumProcesses(marker));
    } finally {
      await bare.close();
    }
    expect(playwrightDefaults).toContain('HttpsUpgrades');

    const pool = createBrowserPool({});
    try {
      await pool.withPage({}, (page) => page.goto(`${site.url}/plain`));
      const features = effectiveDisabledFeatures(findChromiumProcesses(`${pool.id}/`));
      for (const feature of playwrightDefaults) expect(features).toContain(feature);
      for (const feature of ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess']) {
        expect(features).toContain(feature);
      }
    } finally {
      await pool.close();
    }
  });

  it('start one renderer for a page: none for the omnibox popup of its window, no spare for a next navigation', async () => {
    // A fresh pool, so no renderer of an earlier page can still be on its way out.
    const pool = createBrowserPool({});
    try {
      await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/plain`);
        // A spare renderer starts right after the navigation commits.
        await sleep(300);
        const renderers = findChromiumProcesses(`${pool.id}/`).filter(
          (p) => p.state !== 'Z' && p.cmdline.includes('--type=renderer'),
        );
        expect(renderers.filter((p) => p.cmdline.includes('--top-chrome-webui'))).toEqual([]);
        expect(renderers).toHaveLength(1);
      });
    } finally {
      await pool.close();
    }
  });
});
