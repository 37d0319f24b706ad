/**
 * HTML conversion on worker threads (scraper/html/transform-pool.ts): the same output as in the
 * calling thread, pages spread over the threads, and a thread that dies replaced.
 */
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPage } from '../../../bench/site/article.js';
import { NonRetryablePageError } from '../../../lib/errors.js';
import { createTransformPool, type TransformPool } from '../../../scraper/html/transform-pool.js';
import { transformHtml } from '../../../scraper/html/transform.js';
import type { TransformOptions } from '../../../scraper/types.js';

const OPTIONS: TransformOptions = {
  onlyMainContent: true,
  removeBase64Images: true,
  want: { markdown: true, html: true, rawHtml: false, links: true, images: true },
};

let pool: TransformPool;

beforeAll(() => {
  pool = createTransformPool(2);
});

afterAll(async () => {
  await pool?.close();
});

describe('the HTML conversion thread pool', () => {
  it('converts pages exactly as the calling thread does, many at once', async () => {
    const pages = Array.from({ length: 24 }, (_, i) => ({ html: renderPage({ pages: 100, seed: 3 }, 'static', i * 7), url: `https://site.example/a/${i}` }));
    const threaded = await Promise.all(pages.map((p) => pool.transform(p.html, p.url, OPTIONS)));
    expect(threaded).toEqual(pages.map((p) => transformHtml(p.html, p.url, OPTIONS)));
    expect(threaded[0]?.markdown?.length).toBeGreaterThan(1000);
    expect(threaded[0]?.links?.length).toBeGreaterThan(5);
  });

  it('loses only the thread a page outgrows, and carries on with a new one', async () => {
    const small = createTransformPool(1, { maxHeapMb: 48 });
    try {
      const html = renderPage({ pages: 100, seed: 4 }, 'static', 1);
      // Millions of elements: a tree far past the thread's 48 MB heap.
      const huge = `<html><body>${'<div><p>x</p></div>'.repeat(2_000_000)}</body></html>`;
      await expect(small.transform(huge, 'https://site.example/huge', OPTIONS)).rejects.toThrow(/thread|memory/i);
      expect(await small.transform(html, 'https://site.example/b', OPTIONS)).toEqual(transformHtml(html, 'https://site.example/b', OPTIONS));
    } finally {
      await small.close();
    }
  }, 60_000);

  it('starts its threads whatever the working directory of the process', async () => {
    // A thread that resolved its loader from the working directory failed to start from any other.
    const cwd = process.cwd();
    process.chdir(tmpdir());
    const elsewhere = createTransformPool(1);
    try {
      const page = await elsewhere.transform('<html><body><p>Converted away from home.</p></body></html>', 'https://site.example/c', OPTIONS);
      expect(page.markdown).toBe('Converted away from home.');
    } finally {
      process.chdir(cwd);
      await elsewhere.close();
    }
  });

  it('hands back errors of the conversion with their codes, so a bad selector stays a 400 for the caller', async () => {
    const html = '<html><body><main><p>Some text.</p></main></body></html>';
    const options = { ...OPTIONS, includeTags: ['!'] };
    const inThread = (() => {
      try {
        transformHtml(html, 'https://site.example/d', options);
      } catch (err) {
        return err;
      }
    })();
    expect(inThread).toBeInstanceOf(NonRetryablePageError);
    const threaded = await pool.transform(html, 'https://site.example/d', options).catch((err: unknown) => err);
    expect(threaded).toBeInstanceOf(NonRetryablePageError);
    expect(threaded).toMatchObject({ code: 'BAD_REQUEST', retryable: false, message: (inThread as Error).message });
  });
});
