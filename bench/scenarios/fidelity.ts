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
import { fidelity, markdownText, shingleMatch, snippetScore, type Fidelity, type Match } from '../fidelity/score.js';
import { developmentSet, heldOutSet, snippetSet, type FidelityPage } from '../fidelity/sets.js';
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
    'Main-content fidelity of `onlyMainContent` markdown (link targets, image references and markup stripped), scored as scrapinghub/article-extraction-benchmark does (4-token shingles, per-page precision and recall averaged, F1 of the means): its 181 held-out pages with human-marked bodies, and our development sets: mozilla/readability\'s test pages (whose expected output is Readability.js\'s own), and 120 pages of trafilatura\'s evaluation set scored by snippets of article kept and boilerplate left out. Readability.js 0.6 on linkedom, scored the same way, beside us; in process, one page after another.',
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const rows: ResultRow[] = [];
  const notes: string[] = [];
  const row = (metric: string, value: number, unit: string, target?: ResultRow['target']) => rows.push({ metric, unit, values: [value], ...(target && { target }) });
  for (const [set, pages] of [
    ['held-out', heldOutSet()],
    ['dev', developmentSet()],
  ] as const) {
    const markdown = extractAll(pages, trawlMarkdown);
    const readability = extractAll(pages, readabilityText);
    const ours = { ...score(pages, markdown.out.map(markdownText)), msPerPage: markdown.msPerPage };
    const body = score(pages, markdown.out.map((md) => markdownText(withoutTitle(md))));
    const peer = { ...score(pages, readability.out), msPerPage: readability.msPerPage };
    settings.log(`  ${set}: ours F1 ${ours.f1.toFixed(3)}, Readability.js ${peer.f1.toFixed(3)} over ${pages.length} pages`);
    const heldOut = set === 'held-out';
    row(`${set}: ours F1`, ours.f1, '', heldOut ? { text: '≥ 0.95', ok: (m) => m >= 0.95 } : undefined);
    row(`${set}: ours F1, body without the title heading`, body.f1, '');
    row(`${set}: ours precision`, ours.precision, '');
    row(`${set}: ours recall`, ours.recall, '', heldOut ? { text: '≥ 0.97', ok: (m) => m >= 0.97 } : undefined);
    row(`${set}: Readability.js F1`, peer.f1, '');
    row(`${set}: ours ms per page`, ours.msPerPage, 'ms');
    row(`${set}: Readability.js ms per page`, peer.msPerPage, 'ms');
    // Every page of both sets is server-rendered: none should cost a browser render.
    row(`${set}: pages sent to the browser`, pages.filter((p) => needsJavaScript(p.html)).length, 'pages', { text: '0', ok: (m) => m === 0 });
    notes.push(`${set}: ${pages.length} pages; ours ${fmt(ours)} against Readability.js ${fmt(peer)}; our five worst pages: ${worst(pages, ours.matches)}`);
  }
  const snippets = snippetSet();
  const ours = snippetScore(snippets.map((p) => ({ ...p, text: markdownText(trawlMarkdown(p)) })));
  const peer = snippetScore(snippets.map((p) => ({ ...p, text: readabilityText(p) })));
  row('snippets: ours article kept', ours.kept, '');
  row('snippets: ours boilerplate dropped', ours.dropped, '');
  row('snippets: Readability.js article kept', peer.kept, '');
  row('snippets: Readability.js boilerplate dropped', peer.dropped, '');
  notes.push(`snippets: ${snippets.length} pages: ours kept ${ours.kept.toFixed(3)} of the article snippets and dropped ${ours.dropped.toFixed(3)} of the boilerplate ones; Readability.js ${peer.kept.toFixed(3)} and ${peer.dropped.toFixed(3)}. ${snippets.length} pages of trafilatura's evaluation set (a development set), scored by the share of article snippets kept and of boilerplate snippets (bylines, dates, share bars, imprints, related links) left out.`);
  notes.push('"ours" is the markdown as returned, which opens with the article\'s own `<h1>` when the page has one (the page\'s heading, never one made from `<title>`: Firecrawl\'s markdown is the page\'s content); the benchmarks\' article bodies leave the title out, so the body row scores our markdown without its leading `# ` line.');
  notes.push('The development set\'s expected text is Readability.js\'s own output, so its Readability.js score is near 1 by construction; only the held-out set compares the two fairly.');
  return { rows, notes };
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
