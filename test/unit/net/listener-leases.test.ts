/**
 * The guard proxy's listeners for callers' own proxies are opened on demand and bounded: one per
 * proxy while pages hold it, closed when idle, the least recently used idle one closed to make
 * room, and a refusal (not a new port) when every one is held.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrawlError } from '../../../lib/errors.js';
import { createListenerLeases, type Listener } from '../../../scraper/net/listener-leases.js';

/** Listeners that only record their opening and closing. */
function fakeListeners() {
  const open: string[] = [];
  const closed: string[] = [];
  let seq = 0;
  return {
    open,
    closed,
    opener: async (key: string): Promise<Listener> => {
      open.push(key);
      const url = `http://127.0.0.1:${++seq}`;
      return { url, close: async () => void closed.push(key) };
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('listener leases', () => {
  it('shares one listener per key among its holders, and closes it once idle for idleMs', async () => {
    vi.useFakeTimers();
    const fake = fakeListeners();
    const leases = createListenerLeases({ open: fake.opener, idleMs: 1_000 });
    const a = await leases.acquire('proxy-a');
    const b = await leases.acquire('proxy-a');
    expect(b.url).toBe(a.url);
    expect(fake.open).toEqual(['proxy-a']);

    a.release();
    a.release(); // a second release of the same lease counts once
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fake.closed).toEqual([]);
    b.release();
    await vi.advanceTimersByTimeAsync(999);
    expect(fake.closed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.closed).toEqual(['proxy-a']);
    expect(leases.size()).toBe(0);

    // Taken again before its idle time ran out, a listener stays open.
    const c = await leases.acquire('proxy-a');
    c.release();
    await vi.advanceTimersByTimeAsync(500);
    const d = await leases.acquire('proxy-a');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(d.url).toBe(c.url);
    expect(fake.open).toEqual(['proxy-a', 'proxy-a']);
  });

  it('closes the least recently used idle listener to make room, and refuses when every one is held', async () => {
    const fake = fakeListeners();
    const leases = createListenerLeases({ open: fake.opener, max: 2 });
    const a = await leases.acquire('a');
    const b = await leases.acquire('b');
    b.release();
    a.release();
    // b was used less recently than a.
    await leases.acquire('c');
    expect(fake.closed).toEqual(['b']);
    expect(leases.size()).toBe(2);

    await leases.acquire('a');
    const refused = await leases.acquire('d').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TrawlError);
    expect(refused).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
    expect(fake.open).toEqual(['a', 'b', 'c']);
    await leases.close();
    expect(fake.closed.sort()).toEqual(['a', 'b', 'c']);
  });

  it('forgets a listener that failed to open, so the next lease tries again', async () => {
    let fail = true;
    const leases = createListenerLeases({
      open: async (key) => {
        if (fail) throw new Error(`${key} would not open`);
        return { url: 'http://127.0.0.1:1', close: async () => undefined };
      },
    });
    await expect(leases.acquire('a')).rejects.toThrow('a would not open');
    expect(leases.size()).toBe(0);
    fail = false;
    expect((await leases.acquire('a')).url).toBe('http://127.0.0.1:1');
  });
});
