/** Writes made on behalf of every request: a burst must fold into a few statements. */
import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../../../db/connect.js';
import { coalescedWrites } from '../../../lib/coalesced-writes.js';
import { keyUseNoter } from '../../../api/middleware/auth.js';

const db = {} as Db;
const owner = (lastUsedAt: Date | null) => ({ keyId: 'k1', teamId: 't', teamName: 'team', scopes: null, lastUsedAt });

describe('coalescedWrites', () => {
  it('keeps one write in flight per key and sums what arrives meanwhile into the next', async () => {
    const writes: [string, number][] = [];
    let release!: () => void;
    const count = coalescedWrites(async (key, n) => {
      writes.push([key, n]);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    });
    for (let i = 0; i < 100; i++) count('team-a');
    count('team-b', 3);
    release();
    await vi.waitFor(() => expect(writes).toHaveLength(3));
    expect(writes).toEqual([
      ['team-a', 1],
      ['team-b', 3],
      ['team-a', 99],
    ]);
  });
});

describe('keyUseNoter', () => {
  it('touches a stale key once however many requests read the stale time at once', () => {
    const touches: string[] = [];
    const note = keyUseNoter(async (_db, keyId) => void touches.push(keyId));
    for (let i = 0; i < 200; i++) note(db, owner(null));
    expect(touches).toEqual(['k1']);
  });

  it('leaves a key whose stored time is recent alone', () => {
    const touches: string[] = [];
    const note = keyUseNoter(async (_db, keyId) => void touches.push(keyId));
    note(db, owner(new Date()));
    note(db, owner(new Date(Date.now() - 120_000)));
    expect(touches).toEqual(['k1']);
  });
});
