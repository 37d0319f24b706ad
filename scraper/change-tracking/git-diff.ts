/**
 * The `git-diff` mode of change tracking: a unified diff of the page's markdown, as text and as
 * the files → chunks → changes JSON Firecrawl returns. jsdiff (`diff`) writes the diff: it is the
 * de-facto JavaScript implementation of Myers' algorithm and unified patches, maintained for over
 * a decade with bundled types. `parse-diff` turns the text into the JSON shape, the same parser
 * family Firecrawl's output comes from, so clients get identical field names.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import parseDiff from 'parse-diff';

export interface GitDiff {
  text: string;
  json: { files: parseDiff.File[] };
}

/**
 * Myers' cost grows with the edit distance times the length: a 1 MB page rewritten wholesale took
 * a worker 68–150 s of CPU (bench scenario block-diff). Past this many changed lines the diff is
 * the whole page replaced, which is what it nearly is.
 */
const MAX_EDIT_LINES = 1_000;

export function gitDiff(previous: string, current: string): GitDiff {
  const [before, after] = [withFinalNewline(previous), withFinalNewline(current)];
  // A `diff --git` header makes the text read (and parse) like `git diff` output.
  const patch =
    createTwoFilesPatch('a/markdown', 'b/markdown', before, after, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY, maxEditLength: MAX_EDIT_LINES }) ??
    replacedWhole(before, after);
  const text = `diff --git a/markdown b/markdown\n${patch}`;
  return { text, json: { files: parseDiff(text) } };
}

/** The unified diff of every line removed and every line added, in one hunk. */
function replacedWhole(before: string, after: string): string {
  const lines = (text: string) => text.slice(0, -1).split('\n');
  const [old, now] = [lines(before), lines(after)];
  const hunk = [`@@ -1,${old.length} +1,${now.length} @@`, ...old.map((l) => `-${l}`), ...now.map((l) => `+${l}`)];
  return `--- a/markdown\n+++ b/markdown\n${hunk.join('\n')}\n`;
}

/** Without it, a change to the last line also reports "\ No newline at end of file" noise. */
function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
