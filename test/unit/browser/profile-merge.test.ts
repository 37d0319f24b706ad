import { describe, expect, it } from 'vitest';
import type { StorageState } from '../../../activities/browser/live-sessions.js';
import { mergeProfile } from '../../../activities/browser/profile-merge.js';

function cookie(name: string, value: string, domain = 'shop.example'): StorageState['cookies'][number] {
  return { name, value, domain, path: '/', expires: -1, httpOnly: false, secure: true, sameSite: 'Lax' };
}

function state(cookies: StorageState['cookies'], storage: Record<string, Record<string, string>> = {}): StorageState {
  return {
    cookies,
    origins: Object.entries(storage).map(([origin, items]) => ({ origin, localStorage: Object.entries(items).map(([name, value]) => ({ name, value })) })),
  };
}

describe('mergeProfile', () => {
  it('takes the save as it is when nothing is stored', () => {
    const ours = state([cookie('a', '1')]);
    expect(mergeProfile(undefined, ours, undefined)).toBe(ours);
  });

  it('applies what the save set, changed and removed, and keeps what another save stored meanwhile', () => {
    const base = state([cookie('sid', 'old'), cookie('gone', 'x'), cookie('kept', 'k')]);
    const stored = state([cookie('sid', 'old'), cookie('gone', 'x'), cookie('kept', 'k'), cookie('other', 'theirs')]);
    const ours = state([cookie('sid', 'new'), cookie('kept', 'k'), cookie('mine', 'm')]);
    const merged = mergeProfile(base, ours, stored);
    expect(merged.cookies.map((c) => `${c.name}=${c.value}`).sort()).toEqual(['kept=k', 'mine=m', 'other=theirs', 'sid=new']);
  });

  it('leaves alone what the save did not touch, even when the stored value moved on', () => {
    const base = state([cookie('sid', 'v1')]);
    const stored = state([cookie('sid', 'v2')]);
    expect(mergeProfile(base, state([cookie('sid', 'v1')]), stored).cookies).toEqual([cookie('sid', 'v2')]);
  });

  it('tells cookies of the same name on other domains apart', () => {
    const base = state([]);
    const stored = state([cookie('sid', 'a', 'a.example')]);
    const merged = mergeProfile(base, state([cookie('sid', 'b', 'b.example')]), stored);
    expect(merged.cookies).toEqual([cookie('sid', 'a', 'a.example'), cookie('sid', 'b', 'b.example')]);
  });

  it('merges localStorage item by item, and drops an origin left empty', () => {
    const base = state([], { 'https://a.example': { theme: 'dark' }, 'https://b.example': { x: '1' } });
    const stored = state([], { 'https://a.example': { theme: 'dark', lang: 'de' }, 'https://b.example': { x: '1' } });
    const ours = state([], { 'https://a.example': { theme: 'light' } });
    expect(mergeProfile(base, ours, stored).origins).toEqual([{ origin: 'https://a.example', localStorage: [{ name: 'theme', value: 'light' }, { name: 'lang', value: 'de' }] }]);
  });
});
