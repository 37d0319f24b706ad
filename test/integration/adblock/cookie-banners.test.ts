import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieBannerHandler } from '../../../scraper/ad-block/cookie-banners.js';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { startLocalServer, type LocalServer } from '../net/local-server.js';

/** CookieYes's markup, one of the consent managers in autoconsent's rules; rejecting removes it and says so. */
const CONSENT_PAGE = `<!doctype html><html><head><title>Consent</title></head><body>
<main><h1>Article</h1><p>The article text.</p></main>
<div class="cky-consent-container"><p>We value your privacy COOKIE BANNER TEXT</p>
<button data-cky-tag="accept-button">Accept All</button>
<button data-cky-tag="reject-button" onclick="this.closest('.cky-consent-container').remove(); fetch('/rejected')">Reject All</button>
</div></body></html>`;

/**
 * A manager whose rule rejects through a snippet calling the page's own API (autoconsent's
 * thefreedictionary.com rule, which applies on any site): only a script in the page's main world
 * can reach `window.cmpUi`.
 */
const PAGE_API_CONSENT_PAGE = `<!doctype html><html><head><title>Consent</title></head><body>
<main><h1>Article</h1><p>The article text.</p></main>
<div id="cmpBanner"><p>PAGE API BANNER TEXT</p></div>
<script>window.cmpUi = {
  showPurposes: () => false,
  allowAll: () => true,
  rejectAll: () => { document.getElementById('cmpBanner').remove(); fetch('/rejected-through-api'); return true; },
};</script></body></html>`;

let site: LocalServer;
let rejected = 0;
let rejectedThroughApi = 0;
let pool: BrowserPool;
/** Messages the content script sent to Node, by type. */
const messages: string[] = [];

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    if (req.url === '/rejected') rejected++;
    if (req.url === '/rejected-through-api') rejectedThroughApi++;
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/page-api' ? PAGE_API_CONSENT_PAGE : CONSENT_PAGE);
  });
  const { binding } = cookieBannerHandler;
  pool = createBrowserPool({
    contentBlocker: {
      ...cookieBannerHandler,
      binding: binding && {
        name: binding.name,
        handle: (frame, message) => {
          messages.push(String((message as { type?: unknown }).type));
          return binding.handle(frame, message);
        },
      },
    },
  });
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
    for (let i = 0; i < 50 && rejected === 0; i++) await sleep(100);
    expect(rejected).toBe(1);
    // Within the browser engine's settle after load (at most 1.5 s), so scrapes see it gone.
    expect(msAfterLoad).toBeLessThan(1_500);
  });

  it("runs the rules' snippets in the page, where they reach the manager's own API", async () => {
    const present = await pool.withPage({ blockAds: true }, async (page) => {
      await page.goto(`${site.origin}/page-api`, { waitUntil: 'load' });
      for (let i = 0; i < 30 && (await page.locator('#cmpBanner').count()) > 0; i++) await sleep(100);
      return (await page.content()).includes('PAGE API BANNER TEXT');
    });
    expect(present).toBe(false);
    expect(rejectedThroughApi).toBe(1);
  });

  it('asks Node only for the rules, once per http(s) document, and not for the blank page a tab starts with', async () => {
    messages.length = 0;
    const before = rejected;
    const { present } = await bannerAfterLoad(true);
    expect(present).toBe(false);
    // The manager was found and consent rejected, which the script reports but keeps to itself.
    expect(messages).toEqual(['init']);
    // The banner leaves the DOM before its reject request reaches the site: wait for the request,
    // so that it cannot land in the next test's count.
    for (let i = 0; i < 50 && rejected === before; i++) await sleep(100);
    expect(rejected).toBe(before + 1);
  });

  it('leaves the banner alone without blockAds', async () => {
    const before = rejected;
    expect((await bannerAfterLoad(false)).present).toBe(true);
    expect(rejected).toBe(before);
  });
});
