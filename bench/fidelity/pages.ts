/**
 * Per-page precision and recall of `onlyMainContent` on a fidelity set, worst first, with the
 * words each page kept that its article does not have (and the article's words it lost): what
 * the `fidelity` bench sums, opened up page by page to find classes of boilerplate.
 * `node --import tsx bench/fidelity/pages.ts [held-out|dev|failure-classes] [pages to detail] [page name]`
 */
import { transformHtml } from '../../scraper/html/transform.js';
import { fidelity, markdownText, shingleMatch, tokenize } from './score.js';
import { developmentSet, failureClassSet, heldOutSet, type FidelityPage } from './sets.js';

const SETS: Record<string, () => FidelityPage[]> = { 'held-out': heldOutSet, dev: developmentSet, 'failure-classes': failureClassSet };
const [set = 'held-out', detail = '15', only] = process.argv.slice(2);
const pages = (SETS[set] ?? heldOutSet)().filter((p) => !only || p.name.startsWith(only));

/** Runs of at least 3 tokens of `a` that are not in `b` as 4-token shingles: the words one side has alone. */
function extraRuns(a: string[], b: string[]): string[] {
  const have = new Set<string>();
  for (let i = 0; i + 4 <= b.length; i++) have.add(b.slice(i, i + 4).join(' '));
  const covered = new Array<boolean>(a.length).fill(false);
  for (let i = 0; i + 4 <= a.length; i++) if (have.has(a.slice(i, i + 4).join(' '))) for (let j = i; j < i + 4; j++) covered[j] = true;
  const runs: string[] = [];
  let run: string[] = [];
  for (let i = 0; i <= a.length; i++) {
    if (i < a.length && !covered[i]) run.push(a[i]!);
    else {
      if (run.length >= 3) runs.push(run.join(' '));
      run = [];
    }
  }
  return runs;
}

const rows = pages.map((page) => {
  const markdown = transformHtml(page.html, page.url, { onlyMainContent: true, removeBase64Images: true, want: { markdown: true, html: false, rawHtml: false, links: false, images: false } }).markdown ?? '';
  // The bench's "body without the title heading": the title is a decided cost, not boilerplate to find.
  const text = markdownText(markdown.replace(/^# .*\n+/, ''));
  const [tp, fp, fn] = shingleMatch(page.truth, text);
  return { page, markdown, text, p: tp + fp === 0 ? 0 : tp / (tp + fp), r: tp + fn === 0 ? 0 : tp / (tp + fn), returned: shingleMatch(page.truth, markdownText(markdown)) };
});
rows.sort((a, b) => a.p - b.p);
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const asReturned = fidelity(rows.map((r) => r.returned));
console.log(`${set}: F1 ${asReturned.f1.toFixed(4)} (P ${asReturned.precision.toFixed(4)}, R ${asReturned.recall.toFixed(4)}) as returned`);
console.log(`${rows.length} pages, without the title heading: P ${mean(rows.map((r) => r.p)).toFixed(3)} R ${mean(rows.map((r) => r.r)).toFixed(3)}`);
for (const row of rows) console.log(`${row.page.name}  P ${row.p.toFixed(3)}  R ${row.r.toFixed(3)}  ${row.page.url}`);
for (const row of rows.slice(0, Number(detail))) {
  const ours = tokenize(row.text);
  const truth = tokenize(row.page.truth);
  console.log(`\n=== ${row.page.name} P ${row.p.toFixed(3)} R ${row.r.toFixed(3)} ${row.page.url}`);
  for (const run of extraRuns(ours, truth)) console.log(`  + ${run.slice(0, 300)}`);
  for (const run of extraRuns(truth, ours)) console.log(`  - ${run.slice(0, 300)}`);
}
