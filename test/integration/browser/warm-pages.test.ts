/**
 * Warm pages: a call gets the page a previous call used, reset in between. Each test makes call A
 * leave state behind and checks that call B, on the very same page (one slot, so one warm page;
 * `pagesReused` and the page object prove the reuse), sees none of it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBrowserPool, type BrowserPool, type BrowserPoolOptions, type Page } from '../../../browser/browser-pool.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer();
});

afterAll(async () => {
  await site?.close();
});

async function withPool(options: BrowserPoolOptions, test: (pool: BrowserPool) => Promise<void>): Promise<void> {
  const pool = createBrowserPool({ maxConcurrentPages: 1, ...options });
  try {
    await test(pool);
  } finally {
    await pool.close();
  }
}

/** Everything a page can read about the state its origin, its tab and its context hold. */
function readState(page: Page) {
  return page.evaluate(async () => {
    const geolocation = await navigator.permissions.query({ name: 'geolocation' });
    return {
      cookie: document.cookie,
      local: localStorage.getItem('secret'),
      session: sessionStorage.getItem('secret'),
      databases: (await indexedDB.databases()).map((db) => db.name),
      caches: await caches.keys(),
      serviceWorkers: navigator.serviceWorker ? (await navigator.serviceWorker.getRegistrations()).length : 0,
      windowName: window.name,
      historyLength: history.length,
      geolocation: geolocation.state,
    };
  });
}

const CLEAN = {
  cookie: '',
  local: null,
  session: null,
  databases: [],
  caches: [],
  serviceWorkers: 0,
  windowName: '',
  // The blank page the reset leaves, then this call's page.
  historyLength: 2,
  geolocation: 'prompt',
};

/** Resolves once every page of the pool has been reset (or closed) and given its slot back. */
const idle = (pool: BrowserPool) => vi.waitFor(() => expect(pool.stats().slotsInUse).toBe(0), { timeout: 5_000 });

/** A call that leaves its language in localStorage, and returns what an earlier call left there. */
const leaveLanguage = (pool: BrowserPool, locale: string, signal?: AbortSignal) =>
  pool.withPage({ locale, signal }, async (page) => {
    await page.goto(`${site.url}/plain`);
    const before = await page.evaluate(() => localStorage.getItem('left'));
    await page.evaluate(() => localStorage.setItem('left', navigator.language));
    return before;
  });

describe('warm pages', () => {
  it('reuse the page, but nothing a call stored reaches the next one', async () => {
    await withPool({}, async (pool) => {
      const first = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/set-state`);
        await page.context().grantPermissions(['geolocation'], { origin: site.url });
        await page.evaluate(async () => {
          document.cookie = 'script=first-use; path=/';
          sessionStorage.setItem('secret', 'from-first-use');
          window.name = 'from-first-use';
          await new Promise((resolve, reject) => {
            const open = indexedDB.open('secret-db', 1);
            open.onupgradeneeded = () => open.result.createObjectStore('things');
            open.onsuccess = () => resolve(open.result.close());
            open.onerror = () => reject(open.error);
          });
          await (await caches.open('secret-cache')).put('/secret', new Response('from-first-use'));
          // Blocked in the pool's contexts; if it ever registered, the reset must still remove it.
          await navigator.serviceWorker?.register('/sw.js').catch(() => undefined);
        });
        await page.goto(`${site.url}/plain?secret-url`);
        // Control: the state is there for the call that made it.
        expect(await readState(page)).toMatchObject({
          cookie: expect.stringContaining('script=first-use'),
          local: 'from-first-use',
          session: 'from-first-use',
          databases: ['secret-db'],
          caches: ['secret-cache'],
          windowName: 'from-first-use',
          geolocation: 'granted',
        });
        return page;
      });

      const requestsBefore = site.requests.length;
      const second = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/read-state`);
        const state = await readState(page);
        await page.goBack();
        return { page, state, backTo: page.url() };
      });
      expect(second.page).toBe(first);
      expect(pool.stats()).toMatchObject({ pagesServed: 2, pagesReused: 1 });
      expect(second.state).toEqual(CLEAN);
      expect(site.requests.slice(requestsBefore).find((r) => r.path === '/read-state')?.headers.cookie).toBeUndefined();
      // The previous call's URLs are gone from the history: back leads to the blank page only.
      expect(second.backTo).toBe('about:blank');
    });
  });

  it('sends one call’s extra headers with no later call, and serves none of its cached responses', async () => {
    await withPool({}, async (pool) => {
      const headers = { 'x-custom': 'first-caller' };
      const first = await pool.withPage({ extraHTTPHeaders: headers }, async (page) => {
        await page.goto(`${site.url}/environment`);
        const custom = await page.textContent('#custom');
        const cached = await page.evaluate(async () => (await fetch('/cacheable')).text());
        return { custom, cached };
      });
      expect(first).toEqual({ custom: 'first-caller', cached: 'for first-caller' });

      const before = site.requests.length;
      const second = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/environment`);
        const custom = await page.textContent('#custom');
        const cached = await page.evaluate(async () => (await fetch('/cacheable')).text());
        return { custom, cached };
      });
      expect(pool.stats().pagesReused).toBe(1);
      expect(second).toEqual({ custom: '', cached: 'for nobody' });
      expect(site.requests.slice(before).map((r) => r.path)).toContain('/cacheable');
    });
  });

  it('takes the previous call’s listeners, routes and viewport off the page', async () => {
    await withPool({}, async (pool) => {
      const heard: string[] = [];
      await pool.withPage({}, async (page) => {
        page.on('request', (request) => void heard.push(request.url()));
        await page.route('**/plain', (route) => route.fulfill({ body: 'routed by the first call' }));
        await page.setViewportSize({ width: 400, height: 300 });
        await page.goto(`${site.url}/plain`);
      });
      heard.length = 0;
      const second = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/plain`);
        return { text: await page.textContent('h1'), viewport: page.viewportSize() };
      });
      expect(pool.stats().pagesReused).toBe(1);
      expect(second).toEqual({ text: 'plain page', viewport: { width: 1280, height: 800 } });
      expect(heard).toEqual([]);
    });
  });

  it('never reuses a context that HTTP credentials went through, which Chromium cannot forget', async () => {
    for (const seed of ['navigation', 'xhr'] as const) {
      await withPool({}, async (pool) => {
        const withCredentials = await pool.withPage({}, async (page) => {
          if (seed === 'navigation') {
            await page.goto(`${site.url.replace('http://', 'http://user:secret@')}/basic-auth`);
            return page.textContent('#auth');
          }
          await page.goto(`${site.url}/plain`);
          return page.evaluate(
            () =>
              new Promise<string>((resolve) => {
                const xhr = new XMLHttpRequest();
                xhr.open('GET', '/basic-auth', true, 'user', 'secret');
                xhr.onloadend = () => resolve(xhr.responseText.replace(/<[^>]+>/g, ''));
                xhr.send();
              }),
          );
        });
        expect(withCredentials).toMatch(/Basic /);
        await pool
          .withPage({}, async (page) => {
            await page.goto(`${site.url}/basic-auth`);
          })
          // Headless Chromium fails a navigation whose challenge nobody answers.
          .catch(() => undefined);
        expect(site.requests.filter((r) => r.path === '/basic-auth').at(-1)?.headers.authorization).toBeUndefined();
        expect(pool.stats()).toMatchObject({ pagesServed: 2, pagesReused: 0 });
      });
    }
  });

  it('starts a profiled context from its storage state, and closes it, and a dedicated one, instead of lending it on', async () => {
    await withPool({}, async (pool) => {
      const origin = new URL(site.url).origin;
      const storageState = {
        cookies: [{ name: 'profile', value: 'kept', domain: new URL(site.url).hostname, path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' as const }],
        origins: [{ origin, localStorage: [{ name: 'secret', value: 'from-profile' }] }],
      };
      const seen = await pool.withPage({ storageState }, async (page) => {
        await page.goto(`${site.url}/plain`);
        return page.evaluate(() => ({ cookie: document.cookie, local: localStorage.getItem('secret') }));
      });
      expect(seen).toEqual({ cookie: 'profile=kept', local: 'from-profile' });
      await pool.withPage({ dedicated: true }, (page) => page.goto(`${site.url}/plain`));
      const after = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/plain`);
        return page.evaluate(() => ({ cookie: document.cookie, local: localStorage.getItem('secret') }));
      });
      expect(after).toEqual({ cookie: '', local: null });
      // Neither the profiled nor the dedicated context served another call.
      expect(pool.stats()).toMatchObject({ pagesServed: 3, pagesReused: 0 });
    });
  });

  it('does not reuse a page whose call was abandoned while it still used the page', async () => {
    await withPool({}, async (pool) => {
      const controller = new AbortController();
      const abandoned = pool.withPage({ signal: controller.signal }, async (page) => {
        await page.goto(`${site.url}/plain`);
        controller.abort(new Error('deadline'));
        // Still "working" on the page when the pool gives up on the call.
        await sleep(200);
        return page;
      });
      await expect(abandoned).rejects.toThrow('deadline');
      await pool.withPage({}, (page) => page.goto(`${site.url}/plain`));
      expect(pool.stats()).toMatchObject({ pagesServed: 2, pagesReused: 0 });
    });
  });

  it('keeps a warm page per set of context options, and never lends one to other options', async () => {
    await withPool({ maxConcurrentPages: 2 }, async (pool) => {
      // No call waits for the one before it to be reset: with two slots, the slot the next call
      // gets is often the other options' page's, while its own options' page is still resetting.
      const visit = (locale: string | undefined) =>
        pool.withPage({ locale }, async (page) => {
          await page.goto(`${site.url}/plain`);
          return page.evaluate(() => navigator.language);
        });
      expect(await visit('de-DE')).toBe('de-DE');
      expect(await visit(undefined)).toBe('en-US');
      expect(pool.stats()).toMatchObject({ pagesReused: 0 });
      expect(await visit('de-DE')).toBe('de-DE');
      expect(await visit(undefined)).toBe('en-US');
      expect(await visit('de-DE')).toBe('de-DE');
      expect(pool.stats()).toMatchObject({ pagesServed: 5, pagesReused: 3 });
    });
  });

  it('opens another context for a call whose options’ page is still being reset, while the browser has room', async () => {
    await withPool({ maxConcurrentPages: 4 }, async (pool) => {
      expect(await leaveLanguage(pool, 'en-US')).toBeNull();
      // Starts the moment the one before returns, while its page is resetting: waiting for that
      // reset would put it on this call's latency, every time, for calls made back to back.
      expect(await leaveLanguage(pool, 'en-US')).toBeNull();
      expect(pool.stats()).toMatchObject({ pagesServed: 2, pagesReused: 0 });
      await idle(pool);
      expect(pool.stats()).toMatchObject({ warmPages: 2 });
    });
  });

  it('waits for its options’ page that is still being reset, rather than pushing another warm page out', async () => {
    await withPool({ maxConcurrentPages: 2 }, async (pool) => {
      expect(await leaveLanguage(pool, 'en-US')).toBeNull();
      await idle(pool);
      expect(await leaveLanguage(pool, 'de-DE')).toBeNull();
      // Starts the moment the one before returns: a slot is free, the German page is resetting,
      // and the English page is warm. A new context here would make three pages for two slots.
      expect(await leaveLanguage(pool, 'de-DE')).toBeNull();
      await idle(pool);
      expect(await leaveLanguage(pool, 'en-US')).toBeNull();
      await idle(pool);
      expect(pool.stats()).toMatchObject({ pagesServed: 4, pagesReused: 2, warmPages: 2 });
    });
  });

  it('loses no page when a call waiting for a reset gives up', async () => {
    await withPool({ maxConcurrentPages: 2 }, async (pool) => {
      await leaveLanguage(pool, 'en-US');
      await idle(pool);
      await leaveLanguage(pool, 'de-DE');
      // Waits for the German page's reset (the browser holds its two pages), and gives up first.
      const giveUp = new AbortController();
      const waiting = leaveLanguage(pool, 'de-DE', giveUp.signal);
      setTimeout(() => giveUp.abort(new Error('gave up')), 0);
      await expect(waiting).rejects.toThrow('gave up');
      await idle(pool);
      expect(pool.stats()).toMatchObject({ warmPages: 2 });
      expect(await leaveLanguage(pool, 'de-DE')).toBeNull();
      expect(pool.stats()).toMatchObject({ pagesServed: 3, pagesReused: 1 });
    });
  });
});
