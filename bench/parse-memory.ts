/**
 * One file through convertFile in a process of its own, so its peak resident memory is the parse's
 * alone (bench/scenarios/parse.ts runs it). Prints `{"baselineMb":…,"peakMb":…}`.
 */
import { readFileSync } from 'node:fs';
import { convertFile } from '../scraper/files/convert.js';
import { transformHtml } from '../scraper/html/transform.js';

const file = readFileSync(process.argv[2]!);
const baselineMb = process.resourceUsage().maxRSS / 1024;
await convertFile(
  { engine: 'file', url: 'file://local/bench/file', statusCode: 200, headers: {}, contentType: '', body: file },
  {
    parsers: [{ type: 'pdf' }],
    transform: { onlyMainContent: false, removeBase64Images: true, want: { markdown: true, html: false, rawHtml: false, links: true, images: false } },
    html: async (html, url, options) => transformHtml(html, url, options),
    limits: { deadline: Date.now() + 600_000, signal: new AbortController().signal },
  },
);
console.log(JSON.stringify({ baselineMb, peakMb: process.resourceUsage().maxRSS / 1024 }));
