/**
 * The `blocks` mode of change tracking (a Trawl extension): two versions of a page compared block
 * by block (blocks.ts), each change classified and marked `noise` or `substantive`.
 *
 * - Alignment is a patience diff: blocks unique to both sides anchor it (their longest increasing
 *   run), the gaps between anchors are aligned again the same way, and a gap with no unique block
 *   falls back to a longest common subsequence when it is small. Boilerplate that repeats (a
 *   "Read more" link) cannot pull the alignment out of place, and the cost stays near linear.
 * - A block on both sides but not aligned is `moved`; a removed and an added block of the same
 *   kind in the same gap, with enough words in common, are one `modified` block with a word diff;
 *   the rest are `added` or `removed`.
 * - A change is `noise` when masking the categories asked for (noise.ts) makes it vanish: a
 *   modified block that masks equal, or an added or removed block that is nothing but noise (an ad,
 *   "Updated 3 minutes ago"). `moves` counts pure moves as noise too.
 * - The result depends only on the pair, not on which came first: diff(b, a) is diff(a, b) with
 *   added and removed swapped. The pair is put in one canonical order before aligning, so the ties
 *   every diff has are broken the same way in both directions.
 */
import { diffWordsWithSpace } from 'diff';
import { splitBlocks, type Block, type BlockKind } from './blocks.js';
import { adParagraphs, DEFAULT_NOISE, maskNoise, type NoiseCategory } from './noise.js';

export type BlockChangeType = 'added' | 'removed' | 'modified' | 'moved';

export interface BlockChange {
  type: BlockChangeType;
  significance: 'noise' | 'substantive';
  kind: BlockKind;
  /** Position among the previous version's blocks (removed, modified, moved). */
  fromIndex?: number;
  /** Position among the current version's blocks (added, modified, moved). */
  toIndex?: number;
  before?: string;
  after?: string;
  /** modified: the words that changed, in order. */
  inline?: { op: 'equal' | 'insert' | 'delete'; text: string }[];
}

export interface BlockDiffStats {
  previousBlocks: number;
  currentBlocks: number;
  unchanged: number;
  added: number;
  removed: number;
  modified: number;
  moved: number;
  substantive: number;
  noise: number;
}

export interface BlockDiff {
  changes: BlockChange[];
  stats: BlockDiffStats;
}

/** Gaps with no unique block are aligned by LCS up to this many cells; larger ones are replaced whole. */
const LCS_CELLS = 40_000;
/** Words in common (Jaccard) for a removed and an added block to be one modified block. */
const MODIFIED_SIMILARITY = 0.4;
const MODIFIED_CANDIDATES = 32;

type Pair = [number, number];

export function blockDiff(previous: string, current: string, noise: readonly NoiseCategory[] = DEFAULT_NOISE): BlockDiff {
  const a = splitBlocks(previous);
  const b = splitBlocks(current);
  // One canonical order for the pair (see the header); the result is mirrored back if swapped.
  const swapped = compareKeys(a, b) > 0;
  const [x, y] = swapped ? [b, a] : [a, b];
  const aligned = align(x.map((blk) => blk.key), y.map((blk) => blk.key));
  let changes = classify(x, y, aligned, noise);
  if (swapped) changes = changes.map(mirror);
  changes.sort((p, q) => (p.toIndex ?? p.fromIndex ?? 0) - (q.toIndex ?? q.fromIndex ?? 0));
  const count = (type: BlockChangeType) => changes.filter((c) => c.type === type).length;
  const substantive = changes.filter((c) => c.significance === 'substantive').length;
  return {
    changes,
    stats: {
      previousBlocks: a.length,
      currentBlocks: b.length,
      unchanged: aligned.length,
      added: count('added'),
      removed: count('removed'),
      modified: count('modified'),
      moved: count('moved'),
      substantive,
      noise: changes.length - substantive,
    },
  };
}

function compareKeys(a: readonly Block[], b: readonly Block[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]!.key !== b[i]!.key) return a[i]!.key < b[i]!.key ? -1 : 1;
  }
  return a.length - b.length;
}

function mirror(change: BlockChange): BlockChange {
  const type = change.type === 'added' ? 'removed' : change.type === 'removed' ? 'added' : change.type;
  return {
    ...change,
    type,
    fromIndex: change.toIndex,
    toIndex: change.fromIndex,
    before: change.after,
    after: change.before,
    ...(change.inline && { inline: wordDiff(change.after!, change.before!) }),
  };
}

/** Aligned index pairs of equal keys, in order: patience anchors, then the gaps between them. */
function align(x: readonly string[], y: readonly string[]): Pair[] {
  const pairs: Pair[] = [];
  // A stack of gaps rather than recursion, so a long page cannot exhaust the call stack.
  const gaps: Array<[number, number, number, number]> = [[0, x.length, 0, y.length]];
  while (gaps.length > 0) {
    let [x0, x1, y0, y1] = gaps.pop()!;
    while (x0 < x1 && y0 < y1 && x[x0] === y[y0]) pairs.push([x0++, y0++]);
    while (x1 > x0 && y1 > y0 && x[x1 - 1] === y[y1 - 1]) pairs.push([--x1, --y1]);
    const anchors = patienceAnchors(x, y, x0, x1, y0, y1);
    if (anchors.length === 0) {
      pairs.push(...lcs(x, y, x0, x1, y0, y1));
      continue;
    }
    let [px, py] = [x0, y0];
    for (const [ax, ay] of anchors) {
      if (px < ax && py < ay) gaps.push([px, ax, py, ay]);
      pairs.push([ax, ay]);
      [px, py] = [ax + 1, ay + 1];
    }
    if (px < x1 && py < y1) gaps.push([px, x1, py, y1]);
  }
  return pairs.sort((p, q) => p[0] - q[0]);
}

/** Pairs of keys that occur once on each side, cut to their longest run increasing on both. */
function patienceAnchors(x: readonly string[], y: readonly string[], x0: number, x1: number, y0: number, y1: number): Pair[] {
  const seen = new Map<string, { x: number; xCount: number; y: number; yCount: number }>();
  for (let i = x0; i < x1; i++) {
    const entry = seen.get(x[i]!) ?? { x: i, xCount: 0, y: -1, yCount: 0 };
    entry.xCount += 1;
    seen.set(x[i]!, entry);
  }
  for (let j = y0; j < y1; j++) {
    const entry = seen.get(y[j]!);
    if (!entry) continue;
    entry.yCount += 1;
    entry.y = j;
  }
  const unique: Pair[] = [];
  for (const e of seen.values()) if (e.xCount === 1 && e.yCount === 1) unique.push([e.x, e.y]);
  unique.sort((p, q) => p[0] - q[0]);
  return longestIncreasing(unique);
}

/** The longest run of pairs whose second members increase (patience sorting, O(n log n)). */
function longestIncreasing(pairs: readonly Pair[]): Pair[] {
  const tails: number[] = [];
  const previous = new Array<number>(pairs.length).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < pairs[i]![1]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const run: Pair[] = [];
  for (let i = tails.at(-1) ?? -1; i >= 0; i = previous[i]!) run.unshift(pairs[i]!);
  return run;
}

/** A longest common subsequence of a small gap; a large one has none (replaced whole). */
function lcs(x: readonly string[], y: readonly string[], x0: number, x1: number, y0: number, y1: number): Pair[] {
  const n = x1 - x0;
  const m = y1 - y0;
  if (n === 0 || m === 0 || n * m > LCS_CELLS) return [];
  const table = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = x[x0 + i] === y[y0 + j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const pairs: Pair[] = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (x[x0 + i] === y[y0 + j]) pairs.push([x0 + i++, y0 + j++]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

function classify(x: readonly Block[], y: readonly Block[], aligned: readonly Pair[], noise: readonly NoiseCategory[]): BlockChange[] {
  const alignedX = new Set(aligned.map(([i]) => i));
  const alignedY = new Set(aligned.map(([, j]) => j));
  const removed = x.map((_, i) => i).filter((i) => !alignedX.has(i));
  const added = new Set(y.map((_, j) => j).filter((j) => !alignedY.has(j)));
  const changes: BlockChange[] = [];
  const ads = noise.includes('ads') ? { x: adsOf(x), y: adsOf(y) } : { x: [], y: [] };

  // Moves: an unaligned block with the same key on both sides, paired first come first served.
  const addedByKey = new Map<string, number[]>();
  for (const j of added) addedByKey.set(y[j]!.key, [...(addedByKey.get(y[j]!.key) ?? []), j]);
  const stillRemoved: number[] = [];
  for (const i of removed) {
    const j = addedByKey.get(x[i]!.key)?.shift();
    if (j === undefined) {
      stillRemoved.push(i);
      continue;
    }
    added.delete(j);
    changes.push({ type: 'moved', significance: noise.includes('moves') ? 'noise' : 'substantive', kind: x[i]!.kind, fromIndex: i, toIndex: j, before: x[i]!.text, after: y[j]!.text });
  }

  // Modified: within one gap between aligned blocks, a removed and an added block alike enough.
  // Both go through the gap in order, so a removed block is tried against the next
  // MODIFIED_CANDIDATES added blocks after the last pair: a page rewritten wholesale pairs along
  // its diagonal, at a bounded number of comparisons per block.
  const gapOf = gapIndex(aligned);
  const addedByGap = new Map<number, { blocks: number[]; next: number }>();
  for (const j of added) {
    const gap = addedByGap.get(gapOf.y(j)) ?? { blocks: [], next: 0 };
    gap.blocks.push(j);
    addedByGap.set(gapOf.y(j), gap);
  }
  const words = new Map<Block, Set<string>>();
  for (const i of stillRemoved) {
    const gap = addedByGap.get(gapOf.x(i));
    const alike = (j: number) =>
      y[j]!.kind === x[i]!.kind && (similarity(x[i]!, y[j]!, words) >= MODIFIED_SIMILARITY || maskNoise(x[i]!.key, noise) === maskNoise(y[j]!.key, noise));
    let match: number | undefined;
    for (let k = gap?.next ?? 0; gap && k < Math.min(gap.blocks.length, gap.next + MODIFIED_CANDIDATES); k++) {
      if (!alike(gap.blocks[k]!)) continue;
      match = gap.blocks[k]!;
      gap.next = k + 1;
      break;
    }
    if (match === undefined) {
      changes.push({ type: 'removed', significance: loneSignificance(x[i]!, ads.x[i] ?? false, noise), kind: x[i]!.kind, fromIndex: i, before: x[i]!.text });
      continue;
    }
    added.delete(match);
    const [before, after] = [x[i]!, y[match]!];
    const masksEqual = maskNoise(before.key, noise) === maskNoise(after.key, noise);
    changes.push({
      type: 'modified',
      significance: masksEqual ? 'noise' : 'substantive',
      kind: after.kind,
      fromIndex: i,
      toIndex: match,
      before: before.text,
      after: after.text,
      inline: wordDiff(before.text, after.text),
    });
  }
  for (const j of added) changes.push({ type: 'added', significance: loneSignificance(y[j]!, ads.y[j] ?? false, noise), kind: y[j]!.kind, toIndex: j, after: y[j]!.text });
  return changes;
}

/** For each unaligned index, which gap between aligned pairs it falls in (the number of pairs before it). */
function gapIndex(aligned: readonly Pair[]) {
  const xs = aligned.map(([i]) => i);
  const ys = aligned.map(([, j]) => j);
  const rank = (sorted: readonly number[], v: number) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { x: (i: number) => rank(xs, i), y: (j: number) => rank(ys, j) };
}

const WORD = /[\p{L}\p{N}]+/gu;

function similarity(a: Block, b: Block, cache: Map<Block, Set<string>>): number {
  const wordsOf = (block: Block) => {
    let found = cache.get(block);
    if (!found) cache.set(block, (found = new Set(block.key.slice(block.kind.length + 1).toLowerCase().match(WORD) ?? [])));
    return found;
  };
  const [wordsA, wordsB] = [wordsOf(a), wordsOf(b)];
  if (wordsA.size === 0 && wordsB.size === 0) return 1;
  let shared = 0;
  for (const w of wordsA) if (wordsB.has(w)) shared += 1;
  return shared / (wordsA.size + wordsB.size - shared);
}

function wordDiff(before: string, after: string): NonNullable<BlockChange['inline']> {
  return diffWordsWithSpace(before, after).map((part) => ({ op: part.added ? 'insert' : part.removed ? 'delete' : 'equal', text: part.value }));
}

/** Words a block of nothing but noise may keep beside it: its label ("Updated", "views"). */
const LABEL_WORDS = 2;

/** Which blocks are ads: paragraphs only, so that a list item or heading is never taken for one. */
function adsOf(blocks: readonly Block[]): boolean[] {
  const flags = adParagraphs(blocks.map((blk) => (blk.kind === 'paragraph' ? blk.text : '')));
  return flags.map((ad, i) => ad && blocks[i]!.kind === 'paragraph');
}

/** An added or removed block is noise when it is an ad, or noise with at most a label beside it. */
function loneSignificance(block: Block, isAd: boolean, noise: readonly NoiseCategory[]): BlockChange['significance'] {
  if (isAd) return 'noise';
  const text = block.key.slice(block.kind.length + 1);
  const masked = maskNoise(text, noise);
  if (masked === text) return 'substantive';
  const left = masked.replace(/\u2022/g, ' ').match(WORD) ?? [];
  return left.length <= LABEL_WORDS ? 'noise' : 'substantive';
}
