import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrawlError } from '../../../lib/errors.js';
import {
  createBrowserPool,
  type BlockableRequest,
  type BrowserPool,
  type BrowserPoolOptions,
  type Page,
} from '../../../browser/browser-pool.js';
import { findChromiumProcesses, type ChromiumProcess } from '../../../browser/chromium-processes.js';
import { startCountingProxy } from '../../helpers/counting-proxy.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer();
});

afterAll(async () => {
  await site?.close();
});

/** Processes still running; a zombie has exited and only waits for its parent to reap it. */
function running(markerPrefix: string): ChromiumProcess[] {
  return findChromiumProcesses(markerPrefix).filter((p) => p.state !== 'Z');
}

async function eventuallyNone(markerPrefix: string, withinMs = 5_000): Promise<ChromiumProcess[]> {
  const until = Date.now() + withinMs;
  let left = running(markerPrefix);
  while (left.length > 0 && Date.now() < until) {
    await sleep(100);
    left = running(markerPrefix);
  }
  return left;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(20);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return findChromiumProcesses('').some((p) => p.pid === pid && p.state !== 'Z');
}

/** A pool that is closed after the test, whatever happens. */
async function withPool(options: BrowserPoolOptions, test: (pool: BrowserPool) => Promise<void>): Promise<void> {
  const pool = createBrowserPool(options);
  try {
    await test(pool);
  } finally {
    await pool.close();
  }
}

async function visit(pool: BrowserPool, path: string): Promise<void> {
  await pool.withPage({}, async (page) => {
    await page.goto(`${site.url}${path}`);
  });
}

describe('createBrowserPool', () => {
  it('launches lazily and never runs more pages at once than maxConcurrentPages', async () => {
    await withPool({ maxConcurrentPages: 2 }, async (pool) => {
      expect(pool.stats()).toEqual({ launches: 0, crashes: 0, browsersOpen: 0, pagesServed: 0, pagesReused: 0, openPages: 0, warmPages: 0, slotsInUse: 0, slotsWaiting: 0 });
      let inside = 0;
      let peak = 0;
      let peakOpen = 0;
      let peakWaiting = 0;
      let peakInUse = 0;
      await Promise.all(
        Array.from({ length: 6 }, () =>
          pool.withPage({}, async (page) => {
            inside++;
            peak = Math.max(peak, inside);
            peakOpen = Math.max(peakOpen, pool.stats().openPages);
            peakWaiting = Math.max(peakWaiting, pool.stats().slotsWaiting);
            peakInUse = Math.max(peakInUse, pool.stats().slotsInUse);
            await page.goto(`${site.url}/plain`);
            await sleep(100);
            inside--;
          }),
        ),
      );
      expect(peak).toBe(2);
      expect(peakOpen).toBe(2);
      expect(peakInUse).toBe(2);
      expect(peakWaiting).toBeGreaterThan(0);
      // The last pages are reset after their calls return, each still holding its slot.
      await until(() => pool.stats().slotsInUse === 0);
      // Two pages, each reset and reused by the calls queued behind it.
      expect(pool.stats()).toEqual({
        launches: 1,
        crashes: 0,
        browsersOpen: 1,
        pagesServed: 6,
        pagesReused: 4,
        openPages: 0,
        warmPages: 2,
        slotsInUse: 0,
        slotsWaiting: 0,
      });
    });
  });

  it('deferResets holds back the reset of a page, and its slot, until the caller is done', async () => {
    await withPool({ maxConcurrentPages: 2 }, async (pool) => {
      let used: Page | undefined;
      const page = `${site.url}/plain`;
      await pool.deferResets(async () => {
        await pool.withPage({}, async (p) => {
          used = p;
          await p.goto(page);
        });
        // Long enough for a reset started at release to have replaced the document.
        await sleep(500);
        expect(used!.url()).toBe(page);
        expect(pool.stats()).toMatchObject({ openPages: 0, slotsInUse: 1, warmPages: 0 });
      });
      await until(() => pool.stats().slotsInUse === 0);
      expect(used!.url()).toBe('about:blank');
      expect(pool.stats()).toMatchObject({ warmPages: 1 });

      // Outside deferResets the reset starts at release.
      await pool.withPage({}, async (p) => {
        used = p;
        await p.goto(page);
      });
      await until(() => used!.url() === 'about:blank');
    });
  });

  it('lets a deferResets caller that asks for a second page have the slot its first one holds', async () => {
    await withPool({ maxConcurrentPages: 1 }, async (pool) => {
      const urls = await pool.deferResets(async () => {
        const first = await pool.withPage({}, async (p) => {
          await p.goto(`${site.url}/plain`);
          return p.url();
        });
        // A proxy route's retry does this: with one slot, it waits for the first page's reset.
        const second = await pool.withPage({}, (p) => Promise.resolve(p.url()));
        return [first, second];
      });
      expect(urls).toEqual([`${site.url}/plain`, 'about:blank']);
    });
  });

  it('closes while a deferResets caller still holds pages back', async () => {
    const pool = createBrowserPool({});
    await pool.deferResets(async () => {
      await visit(pool, '/plain');
      await pool.close();
    });
    expect(pool.stats()).toMatchObject({ browsersOpen: 0, slotsInUse: 0 });
  });

  it('lets a queued caller leave when its signal aborts', async () => {
    await withPool({ maxConcurrentPages: 1 }, async (pool) => {
      let releaseFirst = (): void => {};
      let started = (): void => {};
      const firstStarted = new Promise<void>((resolve) => (started = resolve));
      const first = pool.withPage({}, () => {
        started();
        return new Promise<void>((resolve) => (releaseFirst = resolve));
      });
      await firstStarted;
      const controller = new AbortController();
      let ran = false;
      const queued = pool.withPage({ signal: controller.signal }, async () => {
        ran = true;
      });
      setTimeout(() => controller.abort(new Error('gave up waiting')), 100);
      await expect(queued).rejects.toThrow('gave up waiting');
      releaseFirst();
      await first;
      expect(ran).toBe(false);
      expect(pool.stats().openPages).toBe(0);
    });
  });

  it('closes the page when the callback throws, and passes the error on', async () => {
    await withPool({}, async (pool) => {
      await expect(
        pool.withPage({}, async () => {
          throw new Error('callback failed');
        }),
      ).rejects.toThrow('callback failed');
      expect(pool.stats().openPages).toBe(0);
    });
  });

  it('isolates cookies, storage and HTTP auth between pages', async () => {
    await withPool({}, async (pool) => {
      await visit(pool, '/set-state');
      const state = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/read-state`);
        return { cookie: await page.textContent('#cookie'), storage: await page.textContent('#storage') };
      });
      expect(state).toEqual({ cookie: '', storage: '' });

      const withCredentials = await pool.withPage({}, async (page) => {
        await page.goto(`${site.url.replace('http://', 'http://user:secret@')}/basic-auth`);
        return page.textContent('#auth');
      });
      expect(withCredentials).toMatch(/^Basic /);
      // Headless Chromium fails the navigation on an unanswered challenge; what matters is that
      // the credentials were not sent again.
      await pool
        .withPage({}, async (page) => {
          await page.goto(`${site.url}/basic-auth`);
        })
        .catch(() => undefined);
      expect(site.requests.filter((r) => r.path === '/basic-auth').at(-1)?.headers.authorization).toBeUndefined();
    });
  });

  it('with blockAds, aborts requests the content blocker rejects, but never the main navigation', async () => {
    const asked: BlockableRequest[] = [];
    const blocks = (request: BlockableRequest): boolean => {
      asked.push(request);
      return request.url.includes('/ads/') || request.url.endsWith('/with-ads');
    };
    await withPool({ contentBlocker: { blocks } }, async (pool) => {
      const before = site.requests.length;
      const status = await pool.withPage({ blockAds: true }, async (page) => {
        const response = await page.goto(`${site.url}/with-ads`);
        return response?.status();
      });
      expect(status).toBe(200);
      const paths = site.requests.slice(before).map((r) => r.path);
      expect(paths).toContain('/with-ads');
      expect(paths).toContain('/png');
      expect(paths.filter((p) => p.startsWith('/ads/'))).toEqual([]);
      expect(asked.find((r) => r.url.endsWith('/ads/tracker.js'))).toMatchObject({
        resourceType: 'script',
        documentUrl: `${site.url}/with-ads`,
      });

      // Without blockAds the blocker is not consulted.
      const unblocked = site.requests.length;
      await pool.withPage({}, (page) => page.goto(`${site.url}/with-ads`));
      expect(site.requests.slice(unblocked).map((r) => r.path)).toContain('/ads/tracker.js');
    });
  });

  it('runs the content blocker script in every frame, talking back through its binding', async () => {
    const messages: unknown[] = [];
    const contentBlocker = {
      binding: { name: 'trawlTestSend', handle: async (_frame: unknown, message: unknown) => void messages.push(message) },
      initScript: 'window.trawlTestSend({ href: location.href });',
    };
    await withPool({ contentBlocker }, async (pool) => {
      await pool.withPage({ blockAds: true }, (page) => page.goto(`${site.url}/plain`));
    });
    expect(messages).toContainEqual({ href: `${site.url}/plain` });
  });

  it('sends a page with an upstream `proxy` through the listener proxyServerFor names, loopback included', async () => {
    const proxy = await startCountingProxy();
    const asked: string[] = [];
    try {
      await withPool({ proxyServerFor: (upstream) => (asked.push(upstream), proxy.url) }, async (pool) => {
        await pool.withPage({ proxy: 'http://upstream.example:3128' }, (page) => page.goto(`${site.url}/with-ads`));
        // A page without one is not affected.
        await visit(pool, '/plain');
      });
      expect(asked).toEqual(['http://upstream.example:3128']);
      expect(proxy.requests).toEqual(
        expect.arrayContaining([`${site.url}/with-ads`, `${site.url}/ads/banner.png`, `${site.url}/png`]),
      );
      expect(proxy.requests).not.toContain(`${site.url}/plain`);
    } finally {
      await proxy.close();
    }
  });

  it('fails a page asking for an upstream proxy when the pool has no route to one', async () => {
    await withPool({}, async (pool) => {
      const err = await pool.withPage({ proxy: 'http://upstream.example:3128' }, async () => undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TrawlError);
      expect(pool.stats().openPages).toBe(0);
    });
  });

  it('retires a browser after retireAfterPages and launches a new one', async () => {
    await withPool({ retireAfterPages: 2 }, async (pool) => {
      for (let i = 0; i < 5; i++) await visit(pool, '/plain');
      expect(pool.stats()).toMatchObject({ launches: 3, pagesServed: 5, openPages: 0 });
      expect(await eventuallyNone(`${pool.id}/1`)).toEqual([]);
      expect(await eventuallyNone(`${pool.id}/2`)).toEqual([]);
      expect(running(`${pool.id}/3`).length).toBeGreaterThan(0);
    });
  });

  it('closes an idle browser and relaunches it on the next page', async () => {
    await withPool({ idleCloseSecs: 0.3 }, async (pool) => {
      await visit(pool, '/plain');
      expect(await eventuallyNone(`${pool.id}/1`)).toEqual([]);
      await visit(pool, '/plain');
      expect(pool.stats().launches).toBe(2);
    });
  });

  it('relaunches after the browser process is killed, failing only the page in flight', async () => {
    await withPool({}, async (pool) => {
      await visit(pool, '/plain');
      const browserProcess = running(`${pool.id}/1`).find((p) => p.pid === p.pgid && !p.cmdline.includes('--type='));
      expect(browserProcess).toBeDefined();

      const hangs = site.requests.filter((r) => r.path === '/hang').length;
      const inFlight = pool.withPage({}, async (page) => {
        await page.goto(`${site.url}/hang`, { timeout: 30_000 });
      });
      // Killed mid-navigation: the request has reached the server, which never answers.
      await until(() => site.requests.filter((r) => r.path === '/hang').length > hangs);
      process.kill(browserProcess!.pid, 'SIGKILL');
      await expect(inFlight).rejects.toThrow();

      await visit(pool, '/plain');
      expect(pool.stats()).toMatchObject({ launches: 2, crashes: 1, browsersOpen: 1, openPages: 0 });
      expect(await eventuallyNone(`${pool.id}/1`)).toEqual([]);
    });
  });

  it('close() ends pages in flight and leaves no Chromium process behind', async () => {
    const pool = createBrowserPool({});
    await visit(pool, '/plain');
    const hangs = site.requests.filter((r) => r.path === '/hang').length;
    const inFlight = pool
      .withPage({}, async (page) => {
        await page.goto(`${site.url}/hang`, { timeout: 30_000 });
      })
      .then(
        () => 'finished',
        () => 'failed',
      );
    await until(() => site.requests.filter((r) => r.path === '/hang').length > hangs);
    const before = running(`${pool.id}/`);
    // The browser, its zygotes, renderer, GPU and network processes.
    expect(before.length).toBeGreaterThanOrEqual(4);

    await pool.close();
    expect(await inFlight).toBe('failed');
    expect(await eventuallyNone(`${pool.id}/`, 2_000)).toEqual([]);
    expect(before.filter((p) => isAlive(p.pid))).toEqual([]);

    const err = await pool.withPage({}, async () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
  });

  it('reports a browser that cannot launch as a retryable SERVICE_UNAVAILABLE', async () => {
    await withPool({ executablePath: '/nonexistent/chromium' }, async (pool) => {
      const err = await pool.withPage({}, async () => undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TrawlError);
      expect((err as TrawlError).code).toBe('SERVICE_UNAVAILABLE');
      expect((err as TrawlError).retryable).toBe(true);
      expect(pool.stats()).toEqual({ launches: 0, crashes: 0, browsersOpen: 0, pagesServed: 0, pagesReused: 0, openPages: 0, warmPages: 0, slotsInUse: 0, slotsWaiting: 0 });
    });
  });
});
