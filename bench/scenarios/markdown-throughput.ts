/**
 * Our whole HTML pipeline (parse, metadata, links, clean-up, main-content selection, markdown)
 * against plain turndown (with GFM tables) over the site's static pages, in this process, one
 * page after another. MB/s counts input HTML bytes.
 */
import { loadavg } from 'node:os';
import { transformHtml } from '../../scraper/html/transform.js';
import type { TransformOptions } from '../../scraper/types.js';
import { createPlainTurndown } from '../peer/turndown.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { renderPage } from '../site/article.js';
import { DEFAULT_SITE_SEED } from '../site/server.js';

/** Enough pages for a steady figure in a few seconds a pass; the site's pages vary 20–57 KB. */
const DEFAULT_PAGES = 300;

/** What a crawl asks of the pipeline: markdown of the main content, plus links to follow. */
const CRAWL_TRANSFORM: TransformOptions = {
  onlyMainContent: true,
  removeBase64Images: true,
  want: { markdown: true, html: false, rawHtml: false, links: true, images: false },
};

export const markdownThroughput: Scenario = {
  name: 'markdown',
  description:
    'HTML → markdown over the static pages, in-process and single-threaded: our transformHtml() (parse, metadata, links, clean-up, main content, markdown) against plain turndown + GFM over the whole page (script/style/head removed). MB/s of input HTML.',
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const pages = settings.pages ?? DEFAULT_PAGES;
  const shape = { pages, seed: DEFAULT_SITE_SEED };
  const origin = 'http://127.0.0.1:8080';
  const html = Array.from({ length: pages }, (_, i) => renderPage(shape, 'static', i));
  const megabytes = html.reduce((sum, h) => sum + Buffer.byteLength(h), 0) / 1e6;
  const turndown = createPlainTurndown();
  const ours = () => html.map((h, i) => transformHtml(h, `${origin}/static/articles/${i}`, CRAWL_TRANSFORM).markdown ?? '');
  const plain = () => html.map((h) => turndown.turndown(h));
  const timed = (pass: () => string[]) => {
    const t0 = performance.now();
    const out = pass();
    return { seconds: (performance.now() - t0) / 1000, bytes: out.reduce((sum, md) => sum + md.length, 0) };
  };

  // One untimed pass each warms the JIT.
  timed(ours);
  timed(plain);
  const rates = { ours: [] as number[], plain: [] as number[] };
  const output = { ours: 0, plain: 0 };
  const loads: number[] = [];
  for (let r = 0; r < settings.runs; r++) {
    loads.push(loadavg()[0]!);
    const passes = r % 2 === 0 ? (['ours', 'plain'] as const) : (['plain', 'ours'] as const);
    for (const side of passes) {
      const result = timed(side === 'ours' ? ours : plain);
      rates[side].push(megabytes / result.seconds);
      output[side] = result.bytes;
    }
    settings.log(`  run ${r + 1}: ours ${rates.ours.at(-1)!.toFixed(2)} MB/s, turndown ${rates.plain.at(-1)!.toFixed(2)} MB/s`);
  }
  return {
    rows: [
      { metric: 'ours (transformHtml)', unit: 'MB/s', values: rates.ours },
      { metric: 'plain turndown', unit: 'MB/s', values: rates.plain },
      { metric: 'ours ÷ turndown', unit: '×', values: rates.ours.map((r, i) => r / rates.plain[i]!), target: { text: '≥ 1.0', ok: (m) => m >= 1 } },
    ],
    notes: [
      `${pages} pages, ${megabytes.toFixed(1)} MB of HTML per pass; markdown out per pass: ours ${(output.ours / 1e6).toFixed(1)} MB (main content only), turndown ${(output.plain / 1e6).toFixed(1)} MB (whole page); 1-min load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
    ],
  };
}
