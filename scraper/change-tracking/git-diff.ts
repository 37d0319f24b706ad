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

export function gitDiff(previous: string, current: string): GitDiff {
  // A `diff --git` header makes the text read (and parse) like `git diff` output.
  const patch = createTwoFilesPatch('a/markdown', 'b/markdown', withFinalNewline(previous), withFinalNewline(current), undefined, undefined, {
    headerOptions: FILE_HEADERS_ONLY,
  });
  const text = `diff --git a/markdown b/markdown\n${patch}`;
  return { text, json: { files: parseDiff(text) } };
}

/** Without it, a change to the last line also reports "\ No newline at end of file" noise. */
function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
