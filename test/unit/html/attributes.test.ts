/** The attributes format (scraper/html/attributes.ts) through the HTML transform, as the scraper runs it. */
import { describe, expect, it } from 'vitest';
import { transformHtml } from '../../../scraper/html/transform.js';
import type { TransformOptions } from '../../../scraper/types.js';
import { type TrawlError } from '../../../lib/errors.js';

const PAGE = `<html><body><nav><a class="car" data-vehicle-name="Nav Car" href="/nav">nav</a></nav>
<main><article><h1>Cars</h1><p>Text enough to be the main content of this page, which it is.</p>
<div class="car" data-vehicle-name="Alpha" id="a1"></div><div class="car" vehicle-name="" data-id="7"></div>
<div class="car" data-vehicle-name="Beta" ID="b2"></div></article></main></body></html>`;

const options = (attributes: TransformOptions['want']['attributes']): TransformOptions => ({
  onlyMainContent: true,
  removeBase64Images: true,
  want: { markdown: true, html: false, rawHtml: false, links: false, images: false, attributes },
});

describe('attributes format', () => {
  it('reads each selector over the whole page, in document order, trying data-<name>, leaving empty values out', () => {
    const page = transformHtml(PAGE, 'https://example.com/', options([
      { selector: '.car', attribute: 'data-vehicle-name' },
      { selector: 'div.car', attribute: 'vehicle-name' },
      { selector: '.car', attribute: 'ID' },
      { selector: 'table', attribute: 'id' },
    ]));
    expect(page.attributes).toEqual([
      { selector: '.car', attribute: 'data-vehicle-name', values: ['Nav Car', 'Alpha', 'Beta'] },
      { selector: 'div.car', attribute: 'vehicle-name', values: ['Alpha', 'Beta'] },
      { selector: '.car', attribute: 'ID', values: ['a1', '7', 'b2'] },
      { selector: 'table', attribute: 'id', values: [] },
    ]);
  });

  it('refuses an invalid selector with a 400 naming the format', () => {
    expect(() => transformHtml(PAGE, 'https://example.com/', options([{ selector: 'div[', attribute: 'id' }]))).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringContaining('formats.attributes') }) as TrawlError,
    );
  });
});
