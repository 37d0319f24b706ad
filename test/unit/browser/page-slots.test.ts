import { describe, expect, it } from 'vitest';
import { createPageSlots } from '../../../browser/page-slots.js';

describe('createPageSlots', () => {
  it('admits up to its size at once and queues the rest in arrival order', async () => {
    const slots = createPageSlots(2);
    const first = await slots.acquire();
    const second = await slots.acquire();
    const order: number[] = [];
    const third = slots.acquire().then((release) => (order.push(3), release));
    const fourth = slots.acquire().then((release) => (order.push(4), release));
    expect(slots.inUse).toBe(2);
    expect(slots.waiting).toBe(2);

    first();
    first();
    const releaseThird = await third;
    expect(order).toEqual([3]);
    expect(slots.inUse).toBe(2);

    second();
    releaseThird();
    (await fourth)();
    expect(order).toEqual([3, 4]);
    expect(slots.inUse).toBe(0);
  });

  it('drops a queued caller whose signal aborts', async () => {
    const slots = createPageSlots(1);
    const held = await slots.acquire();
    const controller = new AbortController();
    const queued = slots.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(queued).rejects.toThrow('gave up');
    expect(slots.waiting).toBe(0);
    held();
    expect(slots.inUse).toBe(0);
  });

  it('rejects every queued caller on rejectWaiting', async () => {
    const slots = createPageSlots(1);
    await slots.acquire();
    const queued = [slots.acquire(), slots.acquire()];
    slots.rejectWaiting(new Error('closing'));
    for (const waiter of queued) await expect(waiter).rejects.toThrow('closing');
  });
});
