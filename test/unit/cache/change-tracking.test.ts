/** scraper/change-tracking: the changeTracking field from a previous snapshot and a fresh page. */
import { describe, expect, it } from 'vitest';
import { changeTracking } from '../../../scraper/change-tracking/change-tracking.js';
import { gitDiff } from '../../../scraper/change-tracking/git-diff.js';

const at = new Date('2026-11-20T10:00:00.000Z');
const previous = { markdown: '# Title\n\nPrice: 10\n\nFooter', statusCode: 200, scrapedAt: at };

describe('changeTracking', () => {
  it('new when there is no previous snapshot', () => {
    expect(changeTracking(undefined, { markdown: 'x', statusCode: 200 }, ['git-diff'])).toEqual({
      previousScrapeAt: null,
      changeStatus: 'new',
      visibility: 'visible',
    });
  });

  it('same when the markdown is identical, with the previous time', () => {
    expect(changeTracking(previous, { markdown: previous.markdown, statusCode: 200 }, ['git-diff'])).toEqual({
      previousScrapeAt: at.toISOString(),
      changeStatus: 'same',
      visibility: 'visible',
    });
  });

  it('changed with a git diff in git-diff mode', () => {
    const result = changeTracking(previous, { markdown: '# Title\n\nPrice: 12\n\nFooter', statusCode: 200 }, ['git-diff']);
    expect(result.changeStatus).toBe('changed');
    expect(result.diff?.text).toContain('-Price: 10');
    expect(result.diff?.text).toContain('+Price: 12');
    const file = result.diff?.json.files[0];
    expect(file?.chunks[0]?.changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'del', content: '-Price: 10' }),
        expect.objectContaining({ type: 'add', content: '+Price: 12' }),
      ]),
    );
  });

  it('changed without a diff when git-diff was not asked for', () => {
    const result = changeTracking(previous, { markdown: 'other', statusCode: 200 }, []);
    expect(result.changeStatus).toBe('changed');
    expect(result.diff).toBeUndefined();
  });

  it.each([404, 410])('removed when the page now answers %i', (statusCode) => {
    expect(changeTracking(previous, { markdown: 'Not found', statusCode }, ['git-diff'])).toMatchObject({
      changeStatus: 'removed',
      previousScrapeAt: at.toISOString(),
    });
  });
});

describe('gitDiff', () => {
  it('reads like git diff output and parses into files → chunks → changes', () => {
    const { text, json } = gitDiff('a\nb\nc', 'a\nB\nc');
    expect(text.split('\n').slice(0, 4)).toEqual([
      'diff --git a/markdown b/markdown',
      '--- a/markdown',
      '+++ b/markdown',
      '@@ -1,3 +1,3 @@',
    ]);
    expect(text).not.toContain('No newline at end of file');
    expect(json.files).toHaveLength(1);
    expect(json.files[0]).toMatchObject({ from: 'markdown', to: 'markdown', additions: 1, deletions: 1 });
    expect(json.files[0]?.chunks[0]).toMatchObject({ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3 });
  });
});

describe('git-diff past its edit budget', () => {
  it('reports a page rewritten wholesale as every line replaced, in one hunk, instead of running Myers to the end', () => {
    const before = Array.from({ length: 1_500 }, (_, i) => `old line ${i}`).join('\n');
    const after = Array.from({ length: 1_200 }, (_, i) => `new line ${i}`).join('\n');
    const { text, json } = gitDiff(before, after);
    expect(text).toContain('@@ -1,1500 +1,1200 @@');
    const [chunk, ...others] = json.files[0]!.chunks;
    expect(others).toEqual([]);
    expect(chunk!.changes.filter((c) => c.type === 'del')).toHaveLength(1_500);
    expect(chunk!.changes.filter((c) => c.type === 'add')).toHaveLength(1_200);
  });

  it('still gives a small edit of a long page its own hunk', () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => `line ${i}`);
    const edited = lines.map((l, i) => (i === 1_234 ? 'line changed' : l));
    const { json } = gitDiff(lines.join('\n'), edited.join('\n'));
    expect(json.files[0]!.chunks).toHaveLength(1);
    expect(json.files[0]!.chunks[0]!.changes.filter((c) => c.type !== 'normal').map((c) => c.content)).toEqual(['-line 1234', '+line changed']);
  });
});
