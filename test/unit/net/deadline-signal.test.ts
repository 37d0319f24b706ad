import { describe, expect, it } from 'vitest';
import { deadlineSignal } from '../../../lib/deadline-signal.js';

describe('deadlineSignal', () => {
  it('aborts at its deadline even when nothing else holds it, with a TimeoutError', async () => {
    const { signal, clear } = deadlineSignal(undefined, 50);
    // Pressure on the collector: a timeout signal held only weakly could vanish here.
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, 120));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
    clear();
  });

  it('follows its parent, and stops its timer when cleared', async () => {
    const parent = new AbortController();
    const first = deadlineSignal(parent.signal, 10_000);
    parent.abort(new Error('cancelled'));
    expect(first.signal.aborted).toBe(true);
    expect((first.signal.reason as Error).message).toBe('cancelled');
    first.clear();
    const second = deadlineSignal(new AbortController().signal, 30);
    second.clear();
    await new Promise((r) => setTimeout(r, 60));
    expect(second.signal.aborted).toBe(false);
  });
});
