/**
 * Browser profiles at rest (activities/browser/profiles.ts) in Postgres: sealed, bound to their
 * team and name, and never saved past MAX_PROFILE_BYTES, so one team's profiles cannot fill the
 * shared database; the previous save stays. Saves that land together merge what each changed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, MAX_PROFILE_BYTES, saveProfile } from '../../../activities/browser/profiles.js';
import type { StorageState } from '../../../activities/browser/live-sessions.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
const key = randomBytes(32);

beforeAll(async () => {
  testDb = await createTestDb('trawl_profiles');
});

afterAll(async () => {
  await testDb?.drop();
});

function stateWith(value: string): StorageState {
  return { cookies: [{ name: 'sid', value, domain: 'shop.example', path: '/', expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' }], origins: [] };
}

describe('browser profiles at rest', () => {
  it('are sealed: the row holds no cookie in plain text, and opens only for its team and name', async () => {
    const team = randomUUID();
    expect(await saveProfile(testDb.db, key, team, 'shop', stateWith('secret-cookie-value'), undefined)).toBe(true);
    const row = await testDb.db.selectFrom('browser_profiles').select('sealed').where('team_id', '=', team).executeTakeFirstOrThrow();
    expect(row.sealed.includes(Buffer.from('secret-cookie-value'))).toBe(false);
    expect(await loadProfile(testDb.db, key, team, 'shop')).toEqual(stateWith('secret-cookie-value'));
    expect(await loadProfile(testDb.db, key, randomUUID(), 'shop')).toBeUndefined();
    // A row moved to another team does not open there.
    const other = randomUUID();
    await testDb.db.insertInto('browser_profiles').values({ team_id: other, name: 'shop', sealed: row.sealed }).execute();
    await expect(loadProfile(testDb.db, key, other, 'shop')).rejects.toThrow();
    await expect(loadProfile(testDb.db, randomBytes(32), team, 'shop')).rejects.toThrow();
  });

  it('a state over MAX_PROFILE_BYTES is not saved, and the previous save stays', async () => {
    const team = randomUUID();
    expect(await saveProfile(testDb.db, key, team, 'big', stateWith('first'), undefined)).toBe(true);
    const huge = stateWith('x'.repeat(MAX_PROFILE_BYTES));
    expect(await saveProfile(testDb.db, key, team, 'big', huge, stateWith('first'))).toBe(false);
    expect(await loadProfile(testDb.db, key, team, 'big')).toEqual(stateWith('first'));
    // Just under the limit is kept.
    const near = stateWith('y'.repeat(MAX_PROFILE_BYTES - 400));
    expect(Buffer.byteLength(JSON.stringify(near))).toBeLessThanOrEqual(MAX_PROFILE_BYTES);
    expect(await saveProfile(testDb.db, key, team, 'big', near, stateWith('first'))).toBe(true);
    expect(await loadProfile(testDb.db, key, team, 'big')).toEqual(near);
  });

  it('merges pages that saved together: each keeps what it set, and a removal stays removed', async () => {
    const team = randomUUID();
    const base = stateWith('shared');
    await saveProfile(testDb.db, key, team, 'shop', base, undefined);
    const cookie = (name: string, value: string) => ({ ...base.cookies[0]!, name, value });
    // Two pages of one batch, both started from `base`: one logs in, the other accepts a banner and drops sid.
    const loggedIn: StorageState = { cookies: [...base.cookies, cookie('login', 'alice')], origins: [{ origin: 'https://shop.example', localStorage: [{ name: 'cart', value: '3' }] }] };
    const consented: StorageState = { cookies: [cookie('consent', 'yes')], origins: [] };
    await Promise.all([
      saveProfile(testDb.db, key, team, 'shop', loggedIn, base),
      saveProfile(testDb.db, key, team, 'shop', consented, base),
    ]);
    const stored = await loadProfile(testDb.db, key, team, 'shop');
    expect(stored?.cookies.map((c) => `${c.name}=${c.value}`).sort()).toEqual(['consent=yes', 'login=alice']);
    expect(stored?.origins).toEqual(loggedIn.origins);
  });
});
