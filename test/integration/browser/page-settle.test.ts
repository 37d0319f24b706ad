import { EventEmitter } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBrowserPool, type BrowserPool, type Page } from '../../../browser/browser-pool.js';
import { idleProof, watchNetwork, type IdleAnswer, type IdleProof } from '../../../scraper/engines/page-settle.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

/** A page that only emits the network events the settle listens to. */
function fakePage(): Page & EventEmitter {
  return new EventEmitter() as unknown as Page & EventEmitter;
}

/** A proof whose answers the test gives, one per probe. */
function scriptedProof(): { proof: IdleProof; probes: Array<(answer: IdleAnswer) => void> } {
  const probes: Array<(answer: IdleAnswer) => void> = [];
  return { probes, proof: { prove: () => new Promise((resolve) => probes.push(resolve)), stop: async () => undefined } };
}

describe('watchNetwork: the settle with an idle proof', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  /** wait(quiet 100, min 50, max 1500), with whether it has resolved. */
  function settle(page: Page, proof: IdleProof): { settled: () => boolean } {
    let settled = false;
    void watchNetwork(page)
      .wait(100, 50, 1_500, new AbortController().signal, proof)
      .then(() => (settled = true));
    return { settled: () => settled };
  }

  it('ends as soon as a probe started at the minimum proves the page idle, before the quiet window', async () => {
    const page = fakePage();
    const { proof, probes } = scriptedProof();
    const run = settle(page, proof);
    await vi.advanceTimersByTimeAsync(49);
    expect(probes).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(probes).toHaveLength(1);
    probes[0]!('idle');
    await vi.advanceTimersByTimeAsync(0);
    expect(run.settled()).toBe(true);
  });

  it('asks again while the page is busy', async () => {
    const { proof, probes } = scriptedProof();
    const run = settle(fakePage(), proof);
    await vi.advanceTimersByTimeAsync(50);
    probes[0]!('busy');
    await vi.advanceTimersByTimeAsync(0);
    expect(run.settled()).toBe(false);
    expect(probes).toHaveLength(2);
    probes[1]!('idle');
    await vi.advanceTimersByTimeAsync(0);
    expect(run.settled()).toBe(true);
  });

  it('does not take a proof during which a request started, even one that has ended', async () => {
    const page = fakePage();
    const { proof, probes } = scriptedProof();
    const run = settle(page, proof);
    await vi.advanceTimersByTimeAsync(50);
    page.emit('request');
    page.emit('requestfinished');
    probes[0]!('idle');
    await vi.advanceTimersByTimeAsync(0);
    expect(run.settled()).toBe(false);
    expect(probes).toHaveLength(2);
    probes[1]!('idle');
    await vi.advanceTimersByTimeAsync(0);
    expect(run.settled()).toBe(true);
  });

  it('probes only once no request is in flight', async () => {
    const page = fakePage();
    const { proof, probes } = scriptedProof();
    const run = settle(page, proof);
    await vi.advanceTimersByTimeAsync(10);
    page.emit('request');
    await vi.advanceTimersByTimeAsync(200);
    expect(probes).toHaveLength(0);
    page.emit('requestfinished');
    await vi.advanceTimersByTimeAsync(0);
    expect(probes).toHaveLength(1);
    probes[0]!('idle');
    await vi.advanceTimersByTimeAsync(0);
    expect(run.settled()).toBe(true);
  });

  it('falls back to the quiet window when the page cannot prove it is idle', async () => {
    const { proof, probes } = scriptedProof();
    const run = settle(fakePage(), proof);
    await vi.advanceTimersByTimeAsync(50);
    probes[0]!('unprovable');
    await vi.advanceTimersByTimeAsync(49);
    expect(run.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.settled()).toBe(true);
    expect(probes).toHaveLength(1);
  });
});

describe('idleProof', () => {
  let site: FixtureServer;
  let pool: BrowserPool;

  beforeAll(async () => {
    site = await startFixtureServer();
    pool = createBrowserPool({ maxConcurrentPages: 1 });
  });

  afterAll(async () => {
    await pool?.close();
    await site?.close();
  });

  async function answerOn(setUp: string): Promise<IdleAnswer> {
    return pool.withPage({}, async (page, cdp) => {
      await page.goto(`${site.url}/plain`);
      await page.evaluate(setUp);
      const proof = await idleProof(page, cdp);
      try {
        return await proof.prove();
      } finally {
        await proof.stop();
      }
    });
  }

  it('proves a page idle when nothing runs and nothing is due', async () => {
    expect(await answerOn('undefined')).toBe('idle');
  });

  /** Idle callbacks that run at once and report these times left, one per callback. */
  function idlePeriods(...left: number[]): string {
    return `{
      const left = ${JSON.stringify(left)};
      window.requestIdleCallback = (callback) => setTimeout(() => callback({ didTimeout: false, timeRemaining: () => left.shift() ?? 0 }));
    }`;
  }

  it('waits for a fresh idle period when the probe lands in the middle of one', async () => {
    // Every callback of a period shares its deadline, so 20 ms left says nothing about timers;
    // the next period, starting with 50 ms free, proves the page idle.
    expect(await answerOn(idlePeriods(20, 50, 50))).toBe('idle');
  });

  it('needs two free periods in a row: one free period alone proves nothing', async () => {
    expect(await answerOn(idlePeriods(50, 10, 10, 10))).toBe('busy');
    expect(await answerOn(idlePeriods(50, 10, 50, 50))).toBe('idle');
  });

  it('sees a timer due just past the first free period: it has run by the time the page is proven idle', async () => {
    // The page sets a 47 ms timer just as the probe asks for its first idle period, which Chromium
    // then cuts to the timer's 46-47 ms: free enough for one proof.
    const lateTimer = `{
      const requestIdle = window.requestIdleCallback.bind(window);
      let armed = false;
      window.requestIdleCallback = (callback, options) => {
        if (!armed) {
          armed = true;
          setTimeout(() => (window.rendered = true), 47);
        }
        return requestIdle(callback, options);
      };
    }`;
    const { answer, rendered } = await pool.withPage({}, async (page, cdp) => {
      await page.goto(`${site.url}/plain`);
      await page.evaluate(lateTimer);
      const proof = await idleProof(page, cdp);
      try {
        return { answer: await proof.prove(), rendered: await page.evaluate('window.rendered === true') };
      } finally {
        await proof.stop();
      }
    });
    expect(answer === 'busy' || rendered, `proven ${answer} before the timer ran`).toBe(true);
  });

  it('answers busy after a few idle periods cut short, so the settle can ask again', async () => {
    expect(await answerOn(idlePeriods(20, 10, 30, 50))).toBe('busy');
  });

  it('finds a page busy while it keeps rendering frames', async () => {
    // Each frame cuts the idle period short. (A repeating timer does not always: Chromium 156
    // started some 50 ms periods with a 5 or 20 ms interval running.)
    expect(await answerOn('const frame = () => requestAnimationFrame(frame); frame()')).toBe('busy');
  });

  it('cannot prove anything about a page with a frame, whose timers may run elsewhere', async () => {
    const frame = `new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.onload = resolve;
      frame.src = '/plain';
      document.body.append(frame);
    })`;
    expect(await answerOn(frame)).toBe('unprovable');
  });
});
