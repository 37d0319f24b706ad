/**
 * The blocks mode of change tracking on a 1 MB page (issue #38 §2): the time to diff two versions
 * of a page of about 1 MB of markdown, in this process, for three kinds of change: a few edited
 * blocks among noise, a tenth of the blocks moved, and the whole page rewritten. Beside it, the
 * git-diff mode on the same texts (jsdiff's line diff, within its edit budget).
 */
import { loadavg } from 'node:os';
import { blockDiff } from '../../scraper/change-tracking/block-diff.js';
import { gitDiff } from '../../scraper/change-tracking/git-diff.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';

const TARGET_BYTES = 1_000_000;

function page(seed: number, variant: (i: number, block: string) => string = (_i, b) => b): string {
  const blocks: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < TARGET_BYTES; i++) {
    const kind = i % 7;
    const block =
      kind === 0
        ? `## Section ${i} of the report ${seed}`
        : kind === 1
          ? `- Item ${i}: the widget costs $${(i % 90) + 10}.99 and ships in ${i % 9} days`
          : kind === 2
            ? `| row ${i} | ${i * 3} | ${(i * 7) % 101} |`
            : `Paragraph ${i} says what the ${i % 13 === 0 ? 'regulator' : 'company'} published about its ${i % 5 === 0 ? 'winter' : 'spring'} review, updated ${i % 60} minutes ago, with ${i * 11} views so far.`;
    const written = variant(i, block);
    blocks.push(written);
    bytes += written.length + 2;
  }
  return blocks.join('\n\n');
}

export const blockDiffScenario: Scenario = {
  name: 'block-diff',
  description:
    'The blocks mode of change tracking (scraper/change-tracking/block-diff.ts) on two versions of a 1 MB markdown page, in-process: noise and a few edits (every 500th block edited, every timestamp and counter changed), a tenth of the blocks moved, and the page rewritten. The git-diff mode (jsdiff, within its edit budget) on the same texts beside it.',
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const base = page(1);
  const cases = {
    edits: page(1, (i, b) => (i % 500 === 0 ? `${b} (edited)` : b.replace(/updated \d+ minutes ago/, 'updated 2 hours ago').replace(/\d+ views/, `${i * 13} views`))),
    moves: (() => {
      const blocks = base.split('\n\n');
      const moved = blocks.filter((_, i) => i % 10 === 5);
      return blocks.filter((_, i) => i % 10 !== 5).concat(moved).join('\n\n');
    })(),
    rewrite: page(2, (i, b) => b.replace(/\d+/g, (n) => String(Number(n) + 1))),
  };
  const ms = (work: () => unknown) => {
    const t0 = performance.now();
    work();
    return performance.now() - t0;
  };
  blockDiff(base, cases.edits);
  const rows = new Map<string, number[]>();
  const push = (metric: string, value: number) => rows.set(metric, [...(rows.get(metric) ?? []), value]);
  const loads: number[] = [];
  const notes: string[] = [];
  for (let r = 0; r < settings.runs; r++) {
    loads.push(loadavg()[0]!);
    for (const [name, text] of Object.entries(cases)) {
      let stats;
      push(`blocks, ${name}`, ms(() => (stats = blockDiff(base, text).stats)));
      push(`git-diff mode, ${name}`, ms(() => gitDiff(base, text)));
      if (r === 0) notes.push(`${name}: ${JSON.stringify(stats)}`);
    }
    settings.log(`  run ${r + 1}: ${[...rows].map(([m, v]) => `${m} ${v.at(-1)!.toFixed(0)} ms`).join(', ')}`);
  }
  return {
    rows: [...rows].map(([metric, values]) => ({
      metric,
      unit: 'ms',
      values,
    })),
    notes: [`${(base.length / 1e6).toFixed(2)} MB of markdown, ${base.split('\n\n').length} blocks; 1-min load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`, ...notes],
  };
}
