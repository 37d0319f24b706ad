import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieBannerHandler } from '../../../scraper/ad-block/cookie-banners.js';
import { createBrowserPool, type BrowserPool } from '../../../worker/browser/browser-pool.js';
import { startLocalServer, type LocalServer } from '../net/local-server.js';

/** CookieYes's markup, one of the consent managers in autoconsent's rules; rejecting removes it and says so. */
const CONSENT_PAGE = `<!doctype html><html><head><title>Consent</title></head><body>
<main><h1>Article</h1><p>The article text.</p></main>
<div class="cky-consent-container"><p>We value your privacy COOKIE BANNER TEXT</p>
<button data-cky-tag="accept-button">Accept All</button>
<button data-cky-tag="reject-button" onclick="this.closest('.cky-consent-container').remove(); fetch('/rejected')">Reject All</button>
</div></body></html>`;

let site: LocalServer;
let rejected = 0;
let pool: BrowserPool;

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    if (req.url === '/rejected') rejected++;
    res.writeHead(200, { 'content-type': 'text/html' }).end(CONSENT_PAGE);
  });
  pool = createBrowserPool({ contentBlocker: cookieBannerHandler });
});
afterAll(async () => {
  await pool?.close();
  await site?.close();
});

/** Whether the banner is still in the DOM, waiting up to 3 s after `load` for it to go when blocking. */
async function bannerAfterLoad(blockAds: boolean): Promise<{ present: boolean; msAfterLoad: number }> {
  return pool.withPage({ blockAds }, async (page) => {
    await page.goto(`${site.origin}/`, { waitUntil: 'load' });
    const loadedAt = Date.now();
    for (let i = 0; i < 30 && blockAds && (await page.locator('.cky-consent-container').count()) > 0; i++) await sleep(100);
    return { present: (await page.content()).includes('COOKIE BANNER TEXT'), msAfterLoad: Date.now() - loadedAt };
  });
}

describe('cookie banners', () => {
  it('rejects consent through the manager, which takes the banner out of the DOM', async () => {
    const { present, msAfterLoad } = await bannerAfterLoad(true);
    expect(present).toBe(false);
    expect(rejected).toBe(1);
    // Within the browser engine's settle after load (at most 1.5 s), so scrapes see it gone.
    expect(msAfterLoad).toBeLessThan(1_500);
  });

  it('leaves the banner alone without blockAds', async () => {
    expect((await bannerAfterLoad(false)).present).toBe(true);
    expect(rejected).toBe(1);
  });
});
