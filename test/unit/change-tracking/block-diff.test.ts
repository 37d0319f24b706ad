/**
 * The block diff (scraper/change-tracking/block-diff.ts): properties over generated pages, and
 * the noise and substance of the changes a monitor meets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockDiff } from '../../../scraper/change-tracking/block-diff.js';
import { splitBlocks } from '../../../scraper/change-tracking/blocks.js';

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'price', 'news', 'report', 'widget', '42', 'Read more');
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const blockText = fc.oneof(
  text.map((t) => `## ${t}`),
  text.map((t) => `- ${t}`),
  text.map((t) => `| ${t} | x |`),
  text,
  text.map((t) => '```\n  ' + t + '\n```'),
);
const page = fc.array(blockText, { maxLength: 25 });
const md = (blocks: readonly string[]) => blocks.join('\n\n');

describe('block diff properties', () => {
  it('a page diffed with itself has no changes', () => {
    fc.assert(
      fc.property(page, (blocks) => {
        const { changes, stats } = blockDiff(md(blocks), md(blocks));
        expect(changes).toEqual([]);
        expect(stats.unchanged).toBe(splitBlocks(md(blocks)).length);
      }),
    );
  });

  it('the statistics add up on both sides', () => {
    fc.assert(
      fc.property(page, page, (a, b) => {
        const { changes, stats } = blockDiff(md(a), md(b));
        expect(stats.added + stats.removed + stats.modified + stats.moved).toBe(changes.length);
        expect(stats.substantive + stats.noise).toBe(changes.length);
        expect(stats.unchanged + stats.removed + stats.modified + stats.moved).toBe(stats.previousBlocks);
        expect(stats.unchanged + stats.added + stats.modified + stats.moved).toBe(stats.currentBlocks);
      }),
    );
  });

  it('swapping the versions swaps added and removed, and keeps the rest', () => {
    fc.assert(
      fc.property(page, page, (a, b) => {
        const there = blockDiff(md(a), md(b)).stats;
        const back = blockDiff(md(b), md(a)).stats;
        expect([back.added, back.removed, back.modified, back.moved, back.unchanged]).toEqual([there.removed, there.added, there.modified, there.moved, there.unchanged]);
      }),
    );
  });

  it('a block moved elsewhere is one move, nothing else', () => {
    const uniquePage = fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 2, maxLength: 30 }).map((ns) => ns.map((n) => `Paragraph number ${n}.`));
    fc.assert(
      fc.property(uniquePage, fc.nat(), fc.nat(), (blocks, from, to) => {
        const i = from % blocks.length;
        const j = to % blocks.length;
        fc.pre(i !== j);
        const moved = [...blocks];
        const [blk] = moved.splice(i, 1);
        moved.splice(j, 0, blk!);
        const { changes } = blockDiff(md(blocks), md(moved));
        // Moving a block past its neighbour is also moving the neighbour: either is the one move.
        expect(changes).toHaveLength(1);
        expect(changes[0]!.type).toBe('moved');
        expect(blocks).toContain(changes[0]!.after);
      }),
    );
  });
});

describe('block diff classification', () => {
  const page = (updated: string, body: string) => `# Release notes\n\nUpdated ${updated}\n\n${body}\n\n- Faster builds\n- Fewer bugs`;

  it('reports a changed timestamp as noise and an edited paragraph as substantive, with its word diff', () => {
    const { changes, stats } = blockDiff(page('3 minutes ago', 'Version 2.3 is out.'), page('2 hours ago', 'Version 2.4 is out.'));
    expect(stats).toMatchObject({ modified: 2, substantive: 1, noise: 1, unchanged: 3 });
    const edit = changes.find((c) => c.significance === 'substantive')!;
    expect(edit).toMatchObject({ type: 'modified', kind: 'paragraph', before: 'Version 2.3 is out.', after: 'Version 2.4 is out.' });
    expect(edit.inline?.filter((p) => p.op !== 'equal')).toEqual([
      { op: 'delete', text: '3' },
      { op: 'insert', text: '4' },
    ]);
  });

  it('counts prices as substance unless asked, and moves as substance unless asked', () => {
    const before = 'Widget costs $19.99\n\nIntro\n\nOutro';
    const after = 'Widget costs $24.99\n\nOutro\n\nIntro';
    expect(blockDiff(before, after).stats).toMatchObject({ modified: 1, moved: 1, substantive: 2 });
    expect(blockDiff(before, after, ['prices', 'moves']).stats).toMatchObject({ modified: 1, moved: 1, substantive: 0, noise: 2 });
  });

  it('treats an added ad or a lone counter as noise, and a new list item as substance', () => {
    const before = 'Story\n\n- one';
    const after = 'Story\n\nAdvertisement: cheap flights to Rome\n\n1,204 views\n\n- one\n- two';
    const { changes } = blockDiff(before, after);
    expect(changes.map((c) => [c.type, c.significance, c.after])).toEqual([
      ['added', 'noise', 'Advertisement: cheap flights to Rome'],
      ['added', 'noise', '1,204 views'],
      ['added', 'substantive', '- two'],
    ]);
  });

  it('normalises blocks: NFC, zero-width characters and folded whitespace are no change; code indentation is', () => {
    expect(blockDiff('Cafe\u0301  au   lait', 'Café au\u200b lait').changes).toEqual([]);
    expect(blockDiff('```\nif x:\n    y\n```', '```\nif x:\n  y\n```').stats.modified).toBe(1);
  });
});
