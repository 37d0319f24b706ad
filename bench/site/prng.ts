/**
 * A small seeded PRNG (mulberry32), so the synthetic site is the same bytes on every machine and
 * every run: numbers measured on different days compare like for like.
 */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { next, int, pick: (items) => items[int(0, items.length - 1)]! };
}

/** A per-page seed: pages can be generated in any order and each comes out the same. */
export function pageSeed(siteSeed: number, index: number): number {
  return (Math.imul(siteSeed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}
