/**
 * The page sets the fidelity bench scores (test/fixtures/fidelity, each with its licence):
 * - held-out: scrapinghub/article-extraction-benchmark, 181 real pages with human-marked article
 *   bodies. Measured, never tuned on.
 * - development: mozilla/readability's test pages, whose expected output is Readability.js's own
 *   (so Readability.js scores about 1 there by construction), and hand-built pages of the failure
 *   classes of issue #37 (comment threads, old blog templates, table layouts, link-list posts,
 *   related-story blocks), each with its article marked by hand. Tuning happens here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parseHtml, type Document } from '../../scraper/html/dom.js';
import { readerText } from './score.js';
import { decodeBody } from '../../scraper/html/decode.js';

export interface FidelityPage {
  name: string;
  url: string;
  html: string;
  /** The article's text, as a reader sees it. */
  truth: string;
  /** The article as HTML, where the set marks it so: its tables, code blocks and list items are counted. */
  truthHtml?: Document;
}

const ROOT = fileURLToPath(new URL('../../test/fixtures/fidelity/', import.meta.url));

export function heldOutSet(): FidelityPage[] {
  const dir = join(ROOT, 'article-extraction-benchmark');
  const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url: string }>;
  return Object.entries(truth).map(([id, { articleBody, url }]) => ({
    name: id.slice(0, 12),
    url,
    html: decodeBody(gunzipSync(readFileSync(join(dir, 'html', `${id}.html.gz`))), undefined),
    truth: articleBody,
  }));
}

/** A set laid out as mozilla/readability's tests are: one folder per page, `source.html` and `expected.html`. */
function pagesWithExpectedHtml(set: string): FidelityPage[] {
  const dir = join(ROOT, set);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const truthHtml = parseHtml(readFileSync(join(dir, d.name, 'expected.html'), 'utf8'));
      return {
        name: d.name,
        // The URL Readability's own tests give these pages.
        url: 'http://fakehost/test/page.html',
        html: readFileSync(join(dir, d.name, 'source.html'), 'utf8'),
        truth: readerText(truthHtml),
        truthHtml,
      };
    });
}

export const developmentSet = (): FidelityPage[] => pagesWithExpectedHtml('readability');

/** Hand-built pages of the failure classes of issue #37 (test/fixtures/fidelity/failure-classes/README.md). */
export const failureClassSet = (): FidelityPage[] => pagesWithExpectedHtml('failure-classes');

export interface SnippetPage {
  name: string;
  url: string;
  html: string;
  with: string[];
  without: string[];
}

/** trafilatura's evaluation pages (a sample): snippets of the article, and of boilerplate that must go. */
export function snippetSet(): SnippetPage[] {
  const dir = join(ROOT, 'trafilatura');
  const snippets = JSON.parse(readFileSync(join(dir, 'snippets.json'), 'utf8')) as Record<string, { file: string; with: string[]; without: string[] }>;
  return Object.entries(snippets).map(([url, s]) => ({
    name: s.file,
    url,
    html: decodeBody(readFileSync(join(dir, 'pages', s.file)), undefined),
    with: s.with,
    without: s.without,
  }));
}
