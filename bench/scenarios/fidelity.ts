/**
 * Main-content fidelity: how much of a page's article (and how little else) `onlyMainContent`
 * markdown keeps, scored as scrapinghub/article-extraction-benchmark scores it (bench/fidelity/
 * score.ts), on its 181 held-out pages and on our development sets, with Readability.js (on
 * linkedom) scored the same way beside us. In process; also the time each takes per page.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { needsJavaScript } from '../../scraper/engine-choice.js';
import { transformHtml } from '../../scraper/html/transform.js';
import type { TransformOptions } from '../../scraper/types.js';
import {
  addStructureCounts,
  exactMatch,
  fidelity,
  markdownText,
  shingleMatch,
  snippetScore,
  structureKept,
  noStructures,
  type Fidelity,
  type Match,
  type Structure,
  type StructureCount,
} from '../fidelity/score.js';
import { developmentSet, failureClassSet, heldOutSet, snippetSet, type FidelityPage } from '../fidelity/sets.js';
import type { BenchSettings, ResultRow, Scenario, ScenarioResult } from '../scenario.js';

const MAIN_CONTENT: TransformOptions = {
  onlyMainContent: true,
  removeBase64Images: true,
  want: { markdown: true, html: false, rawHtml: false, links: false, images: false },
};

const trawlMarkdown = (page: Pick<FidelityPage, 'html' | 'url'>) => transformHtml(page.html, page.url, MAIN_CONTENT).markdown ?? '';
/**
 * The article body alone: our markdown opens with the article's own `<h1>` (kept, or brought back
 * from the article header the scorer left out), which the benchmarks' bodies leave out.
 */
const withoutTitle = (markdown: string) => markdown.replace(/^# .*\n+/, '');

function readabilityText(page: Pick<FidelityPage, 'html'>): string {
  const { document } = parseHTML(page.html);
  try {
    return new Readability(document as unknown as Document).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}

/** One side's output for every page, timed on its own (scoring is not part of the time). */
function extractAll<T>(pages: readonly FidelityPage[], extract: (p: FidelityPage) => T) {
  const t0 = performance.now();
  const out = pages.map(extract);
  return { out, msPerPage: (performance.now() - t0) / pages.length };
}

function score(pages: readonly FidelityPage[], texts: readonly string[]) {
  const matches: Match[] = pages.map((p, i) => shingleMatch(p.truth, texts[i]!));
  return { ...fidelity(matches), matches };
}

export const fidelityScenario: Scenario = {
  name: 'fidelity',
  description:
    'Main-content fidelity of `onlyMainContent` markdown (link targets, image references and markup stripped), scored as scrapinghub/article-extraction-benchmark does (4-token shingles, per-page precision and recall averaged, F1 of the means): its 181 held-out pages with human-marked bodies, and our development sets: mozilla/readability\'s test pages (whose expected output is Readability.js\'s own), hand-built pages of the failure classes of issue #37 with hand-marked articles, and 120 pages of trafilatura\'s evaluation set scored by snippets of article kept and boilerplate left out. Also the share of exact matches (evaluate.py\'s `accuracy`) and, where the article is marked as HTML, the share of its tables, code blocks, list items and figure captions kept. Readability.js 0.6 on linkedom, scored the same way, beside us; in process, one page after another.',
  run,
};

type SetName = 'held-out' | 'dev' | 'failure-classes';

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const rows: ResultRow[] = [];
  const notes: string[] = [];
  const row = (metric: string, value: number, unit: string, target?: ResultRow['target']) => rows.push({ metric, unit, values: [value], ...(target && { target }) });
  const structure: StructureBySet = [];
  for (const [set, pages] of [
    ['held-out', heldOutSet()],
    ['dev', developmentSet()],
    ['failure-classes', failureClassSet()],
  ] as Array<[SetName, FidelityPage[]]>) {
    const markdown = extractAll(pages, trawlMarkdown);
    const readability = extractAll(pages, readabilityText);
    const texts = markdown.out.map(markdownText);
    const ours = { ...score(pages, texts), msPerPage: markdown.msPerPage };
    const bodies = markdown.out.map((md) => markdownText(withoutTitle(md)));
    const body = score(pages, bodies);
    const peer = { ...score(pages, readability.out), msPerPage: readability.msPerPage };
    settings.log(`  ${set}: ours F1 ${ours.f1.toFixed(3)}, Readability.js ${peer.f1.toFixed(3)} over ${pages.length} pages`);
    row(`${set}: ours F1`, ours.f1, '', F1_TARGETS[set]?.(peer.f1));
    row(`${set}: ours F1, body without the title heading`, body.f1, '');
    row(`${set}: ours precision`, ours.precision, '');
    row(`${set}: ours recall`, ours.recall, '', set === 'held-out' ? { text: '≥ 0.97', ok: (m) => m >= 0.97 } : undefined);
    row(`${set}: Readability.js F1`, peer.f1, '');
    row(`${set}: ours exact matches`, exactShare(pages, texts), '');
    row(`${set}: ours exact matches, body without the title heading`, exactShare(pages, bodies), '');
    row(`${set}: Readability.js exact matches`, exactShare(pages, readability.out), '');
    row(`${set}: ours ms per page`, ours.msPerPage, 'ms');
    row(`${set}: Readability.js ms per page`, peer.msPerPage, 'ms');
    // Every page of every set is server-rendered: none should cost a browser render.
    row(`${set}: pages sent to the browser`, pages.filter((p) => needsJavaScript(p.html)).length, 'pages', { text: '0', ok: (m) => m === 0 });
    notes.push(`${set}: ${pages.length} pages; ours ${fmt(ours)} against Readability.js ${fmt(peer)}; our five worst pages: ${worst(pages, ours.matches)}`);
    if (pages.some((p) => p.truthHtml)) structure.push({ set, ours: structureOf(pages, texts), peer: structureOf(pages, readability.out) });
  }
  structureRows(structure, row, notes);
  snippetRows(row, notes);
  notes.push('"ours" is the markdown as returned, which opens with the article\'s own `<h1>` when the page has one (the page\'s heading, never one made from `<title>`: Firecrawl\'s markdown is the page\'s content); the benchmarks\' article bodies leave the title out, so the body row scores our markdown without its leading `# ` line. Exact matches are evaluate.py\'s `accuracy`: the share of pages whose words are the article\'s words exactly.');
  notes.push('The dev set\'s expected text is Readability.js\'s own output, so its Readability.js score is near 1 by construction; the held-out set and the hand-marked failure-classes set compare the two fairly.');
  return { rows, notes };
}

const F1_TARGETS: Partial<Record<SetName, (peerF1: number) => ResultRow['target']>> = {
  'held-out': () => ({ text: '≥ 0.97', ok: (m) => m >= 0.97 }),
  'failure-classes': (peerF1) => ({ text: `> Readability.js (${peerF1.toFixed(3)})`, ok: (m) => m > peerF1 }),
};

function exactShare(pages: readonly FidelityPage[], texts: readonly string[]): number {
  return pages.filter((p, i) => exactMatch(p.truth, texts[i]!)).length / Math.max(1, pages.length);
}

/** Over the pages whose article is marked as HTML (the held-out set's is text only). */
function structureOf(pages: readonly FidelityPage[], texts: readonly string[]): StructureCount {
  return pages.reduce((sum, p, i) => (p.truthHtml ? addStructureCounts(sum, structureKept(p.truthHtml, texts[i]!)) : sum), noStructures());
}

type StructureBySet = Array<{ set: SetName; ours: StructureCount; peer: StructureCount }>;

function structureRows(structure: StructureBySet, row: (metric: string, value: number, unit: string, target?: ResultRow['target']) => void, notes: string[]): void {
  const share = (c: StructureCount) => {
    const kinds = Object.values(c);
    return kinds.reduce((s, k) => s + k.kept, 0) / Math.max(1, kinds.reduce((s, k) => s + k.total, 0));
  };
  const all = (side: 'ours' | 'peer') => structure.reduce((sum, s) => addStructureCounts(sum, s[side]), noStructures());
  row('structure: ours kept', share(all('ours')), '', { text: '≥ 0.98', ok: (m) => m >= 0.98 });
  row('structure: Readability.js kept', share(all('peer')), '');
  const detail = (c: StructureCount) => (Object.entries(c) as Array<[Structure, { kept: number; total: number }]>).map(([k, { kept, total }]) => `${kept}/${total} ${k}`).join(', ');
  const perSet = structure.map((s) => `${s.set}: ours kept ${detail(s.ours)}; Readability.js ${detail(s.peer)}`).join('. ');
  notes.push(`structure (the sets whose articles are marked as HTML; one counts as kept when its words appear in the output in a row): ${perSet}. The dev set's articles are Readability.js's own output, captions and comment threads included.`);
}

function snippetRows(row: (metric: string, value: number, unit: string) => void, notes: string[]): void {
  const snippets = snippetSet();
  const ours = snippetScore(snippets.map((p) => ({ ...p, text: markdownText(trawlMarkdown(p)) })));
  const peer = snippetScore(snippets.map((p) => ({ ...p, text: readabilityText(p) })));
  row('snippets: ours article kept', ours.kept, '');
  row('snippets: ours boilerplate dropped', ours.dropped, '');
  row('snippets: Readability.js article kept', peer.kept, '');
  row('snippets: Readability.js boilerplate dropped', peer.dropped, '');
  notes.push(`snippets: ${snippets.length} pages: ours kept ${ours.kept.toFixed(3)} of the article snippets and dropped ${ours.dropped.toFixed(3)} of the boilerplate ones; Readability.js ${peer.kept.toFixed(3)} and ${peer.dropped.toFixed(3)}. ${snippets.length} pages of trafilatura's evaluation set (a development set), scored by the share of article snippets kept and of boilerplate snippets (bylines, dates, share bars, imprints, related links) left out.`);
}

const fmt = (f: Fidelity) => `F1 ${f.f1.toFixed(3)} (P ${f.precision.toFixed(3)}, R ${f.recall.toFixed(3)})`;

function worst(pages: readonly FidelityPage[], matches: readonly Match[]): string {
  return matches
    .map(([tp, fp, fn], i) => ({ name: pages[i]!.name, f1: tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn) }))
    .sort((a, b) => a.f1 - b.f1)
    .slice(0, 5)
    .map((w) => `${w.name} ${w.f1.toFixed(2)}`)
    .join(', ');
}
