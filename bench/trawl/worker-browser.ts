/**
 * The browser as the worker runs it (worker/main.ts), for the bench's in-process figures: the
 * pool behind the guard proxy, with the content blocker that `blockAds` (on by default) turns on.
 * Without the blocker, the in-process side would skip work every service scrape does: measured
 * in pairs on the bench's JavaScript pages, filter matching and cookie-banner handling cost about
 * 65 ms of Chromium CPU and 75 ms of latency per page at a load average of 13.
 */
import { createBrowserPool, type BrowserPool } from '../../browser/browser-pool.js';
import { loadConfig } from '../../lib/config.js';
import { createContentBlocker } from '../../scraper/ad-block/content-blocker.js';
import { addressPolicyFor } from '../../scraper/net/address-policy.js';
import { startGuardProxy } from '../../scraper/net/guard-proxy.js';
import { CHROMIUM_PATH } from '../peer/chromium-flags.js';

export interface WorkerBrowser {
  browser: BrowserPool;
  close(): Promise<void>;
}

export async function startWorkerBrowser(options: { maxConcurrentPages?: number } = {}): Promise<WorkerBrowser> {
  const contentBlocker = await createContentBlocker(loadConfig(process.env).adblock);
  const guard = await startGuardProxy({ policy: addressPolicyFor(true) });
  const browser = createBrowserPool({ executablePath: CHROMIUM_PATH, proxyServer: guard.url, contentBlocker, ...options });
  return {
    browser,
    close: async () => {
      await browser.close();
      await guard.close();
    },
  };
}
