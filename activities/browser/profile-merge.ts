/**
 * A profile saved by one page or session is merged into the stored one, not written over it.
 * Pages of one batch or crawl (and sessions opened side by side) all start from the same stored
 * state; each saves back only what it changed, so a cookie one page set is not lost when another
 * page, which never saw it, saves after it. A three-way merge per cookie and per localStorage item:
 * what this save changed from the state it started with (set, altered or removed) is applied to
 * what is stored now; everything else stays as stored.
 */
import type { StorageState } from './live-sessions.js';

type Cookie = StorageState['cookies'][number];
type Origin = StorageState['origins'][number];
type Item = Origin['localStorage'][number];

export function mergeProfile(base: StorageState | undefined, ours: StorageState, stored: StorageState | undefined): StorageState {
  if (!stored) return ours;
  return {
    cookies: mergeKeyed(base?.cookies ?? [], ours.cookies, stored.cookies, cookieKey),
    origins: mergeOrigins(base?.origins ?? [], ours.origins, stored.origins),
  };
}

function cookieKey(cookie: Cookie): string {
  return `${cookie.name}\0${cookie.domain}\0${cookie.path}`;
}

function mergeOrigins(base: Origin[], ours: Origin[], stored: Origin[]): Origin[] {
  const byOrigin = (origins: Origin[]) => new Map(origins.map((origin) => [origin.origin, origin]));
  const [baseOf, oursOf, storedOf] = [byOrigin(base), byOrigin(ours), byOrigin(stored)];
  const merged = new Map(storedOf);
  for (const origin of new Set([...baseOf.keys(), ...oursOf.keys()])) {
    const items = mergeKeyed(baseOf.get(origin)?.localStorage ?? [], oursOf.get(origin)?.localStorage ?? [], storedOf.get(origin)?.localStorage ?? [], (item: Item) => item.name);
    if (items.length === 0) merged.delete(origin);
    else merged.set(origin, { ...(storedOf.get(origin) ?? oursOf.get(origin)!), origin, localStorage: items });
  }
  return [...merged.values()];
}

/** `stored` with every entry `ours` changed from `base` applied: set, replaced or removed. */
function mergeKeyed<T>(base: readonly T[], ours: readonly T[], stored: readonly T[], keyOf: (entry: T) => string): T[] {
  const baseOf = new Map(base.map((entry) => [keyOf(entry), entry]));
  const oursOf = new Map(ours.map((entry) => [keyOf(entry), entry]));
  const merged = new Map(stored.map((entry) => [keyOf(entry), entry]));
  for (const key of new Set([...baseOf.keys(), ...oursOf.keys()])) {
    const mine = oursOf.get(key);
    if (JSON.stringify(mine) === JSON.stringify(baseOf.get(key))) continue;
    if (mine === undefined) merged.delete(key);
    else merged.set(key, mine);
  }
  return [...merged.values()];
}
