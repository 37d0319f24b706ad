/**
 * Main-content fidelity as scrapinghub/article-extraction-benchmark scores it (its evaluate.py),
 * so our figures sit beside its published table: text is cut into word tokens (Python's `\w+`),
 * tokens into overlapping 4-token shingles, and each page's true/false positives and negatives
 * over shingles are normalised to sum to 1 (long pages weigh no more than short ones). Precision
 * and recall are means over pages, F1 their harmonic mean. A 1-token "shingle" is plain token F1.
 */

import { PHRASING_TAGS } from '../../scraper/html/content-stats.js';
import { isTag, isText, walkElements, type AnyNode, type ParentNode } from '../../scraper/html/dom.js';

/** Python's `\w` under re.UNICODE: letters, numbers and the underscore. */
const WORD = /[\p{L}\p{N}_]+/gu;

export function tokenize(text: string): string[] {
  return text.match(WORD) ?? [];
}

function shingles(text: string, n: number): Map<string, number> {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  // As evaluate.py: a text shorter than n is one shingle of what it has.
  for (let i = 0; i < Math.max(1, tokens.length - n + 1); i++) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length === 0) continue;
    const key = shingle.join('\u0001');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export type Match = readonly [tp: number, fp: number, fn: number];

export function shingleMatch(truth: string, predicted: string, n = 4): Match {
  const t = shingles(truth, n);
  const p = shingles(predicted, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...t.keys(), ...p.keys()])) {
    const a = t.get(key) ?? 0;
    const b = p.get(key) ?? 0;
    tp += Math.min(a, b);
    fp += Math.max(0, b - a);
    fn += Math.max(0, a - b);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [0, 0, 0];
}

export interface Fidelity {
  f1: number;
  precision: number;
  recall: number;
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function fidelity(matches: readonly Match[]): Fidelity {
  const precision = mean(matches.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => (fp === 0 && fn === 0 ? 1 : tp / (tp + fp))));
  const recall = mean(matches.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => (fp === 0 && fn === 0 ? 1 : tp / (tp + fn))));
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall };
}

/**
 * The text a reader sees in our markdown: link targets, image references, code fences, list
 * markers, emphasis and table rules go, so they count neither for nor against us.
 */
export function markdownText(markdown: string): string {
  // Code (fenced blocks and inline spans) is kept as written: `_start` is a word there, not emphasis.
  return markdown
    // A target's brackets may be escaped (`focal\(0x0\)`): an escape is one character of it.
    .replace(/!\[[^\]]*\]\((?:\\.|[^)\\])*\)/g, ' ')
    .replace(/\[([^\]]*)\]\((?:\\.|[^()\\]|\([^)]*\))*\)/g, '$1')
    .split(/(^```[^]*?^```.*$|`[^`\n]+`)/m)
    .map((part, i) => (i % 2 === 1 ? codeText(part) : proseText(part)))
    .join('');
}

function codeText(code: string): string {
  return code.startsWith('```') ? code.replace(/^```.*$/gm, ' ') : code.slice(1, -1);
}

function proseText(markdown: string): string {
  return markdown
    // List markers are markup: an ordered list's numbers are no more the article's words than its bullets.
    .replace(/^[ \t]*(?:\d+\.|[-*+])[ \t]+/gm, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!>~|])/g, '$1')
    .replace(/(^|[^\p{L}\p{N}])[*_]+|[*_]+(?=[^\p{L}\p{N}]|$)/gu, '$1')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, ' ');
}

/** A snippet is found when its tokens appear in a row in the text's tokens (markup between words cannot hide it). */
export function containsSnippet(textTokens: string, snippet: string): boolean {
  const tokens = tokenize(snippet);
  return tokens.length > 0 && textTokens.includes(` ${tokens.join(' ')} `);
}

export interface SnippetScore {
  /** Share of the article's snippets kept. */
  kept: number;
  /** Share of the boilerplate snippets left out. */
  dropped: number;
}

export function snippetScore(pages: ReadonlyArray<{ text: string; with: string[]; without: string[] }>): SnippetScore {
  let keptCount = 0;
  let withCount = 0;
  let droppedCount = 0;
  let withoutCount = 0;
  for (const page of pages) {
    const textTokens = ` ${tokenize(page.text).join(' ')} `;
    for (const s of page.with) {
      withCount++;
      if (containsSnippet(textTokens, s)) keptCount++;
    }
    for (const s of page.without) {
      withoutCount++;
      if (!containsSnippet(textTokens, s)) droppedCount++;
    }
  }
  return { kept: keptCount / Math.max(1, withCount), dropped: droppedCount / Math.max(1, withoutCount) };
}

/** As evaluate.py's `accuracy`: the page's tokens are the article's, exactly. */
export function exactMatch(truth: string, predicted: string): boolean {
  const a = tokenize(truth);
  const b = tokenize(predicted);
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

/** Structures whose loss costs a reader more than their share of the words. */
export const STRUCTURES = { tables: 'table', 'code blocks': 'pre', 'list items': 'li', 'figure captions': 'figcaption' } as const;
export type Structure = keyof typeof STRUCTURES;

export type StructureCount = Record<Structure, { kept: number; total: number }>;

export function noStructures(): StructureCount {
  return Object.fromEntries(Object.keys(STRUCTURES).map((k) => [k, { kept: 0, total: 0 }])) as StructureCount;
}

/**
 * How many of the article's tables, code blocks, list items and figure captions the output keeps:
 * one is kept when its words appear in the output's words in a row (so a table is kept whether it
 * comes out as a markdown table or as lines of text, and a list item cut short is not).
 */
export function structureKept(article: ParentNode, text: string): StructureCount {
  const textTokens = ` ${tokenize(text).join(' ')} `;
  const count = noStructures();
  const kinds = Object.entries(STRUCTURES) as Array<[Structure, string]>;
  walkElements(article, (el) => {
    const kind = kinds.find(([, tag]) => tag === el.name)?.[0];
    if (!kind) return;
    const snippet = readerText(el);
    if (tokenize(snippet).length === 0) return;
    count[kind].total++;
    if (containsSnippet(textTokens, snippet)) count[kind].kept++;
  });
  return count;
}

export function addStructureCounts(a: StructureCount, b: StructureCount): StructureCount {
  return Object.fromEntries(
    (Object.keys(STRUCTURES) as Structure[]).map((k) => [k, { kept: a[k].kept + b[k].kept, total: a[k].total + b[k].total }]),
  ) as StructureCount;
}

/**
 * An HTML article's text as a reader sees it: `textContent` runs table cells, list items and
 * blocks together ("PosNameTime"), so a space goes between any two blocks and at a line break;
 * inline elements join.
 */
export function readerText(node: AnyNode): string {
  const parts: string[] = [];
  const stack: Array<AnyNode | ' '> = [node];
  while (stack.length > 0) {
    const next = stack.pop() as AnyNode | ' ';
    if (next === ' ') parts.push(' ');
    else if (isText(next)) parts.push(next.data);
    else if (isTag(next) || next.type === 'root') {
      const block = isTag(next) && (next.name === 'br' || !PHRASING_TAGS.has(next.name));
      if (block) stack.push(' ');
      for (let i = (next as ParentNode).children.length - 1; i >= 0; i--) stack.push((next as ParentNode).children[i] as AnyNode);
      if (block) parts.push(' ');
    }
  }
  return parts.join('');
}
