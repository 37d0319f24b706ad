/**
 * One parser per kind of file, chosen by the bytes (scraper/files/): Office files, CSV and TSV,
 * markdown, PDFs with pages and page markers, built in the test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { convertFile } from '../../../scraper/files/convert.js';
import { sniffFile } from '../../../scraper/files/sniff.js';
import { makeDocx, makePptx, makeXlsx } from '../../helpers/office-fixtures.js';
import { makePdf, THREE_PAGE_TEXTS } from '../../helpers/pdf-fixtures.js';
import { fileContext, filePage } from './file-context.js';

let xlsx: Buffer;
let pdf: Buffer;
const docx = makeDocx({
  heading: 'Quarterly report',
  paragraphs: ['Revenue grew &amp; costs fell.'],
  table: [
    ['Region', 'Total'],
    ['North', '12'],
  ],
});
const pptx = makePptx([{ texts: ['Opening slide', 'First point'], notes: 'Remember the demo' }, { texts: ['Closing slide'] }]);

beforeAll(async () => {
  xlsx = await makeXlsx({ Sales: [['Region', 'Total'], ['North', 12], ['South', 7]], Costs: [['Item', 'Amount'], ['Rent', 3]] });
  pdf = await makePdf(THREE_PAGE_TEXTS);
});

describe('sniffFile', () => {
  it('tells Office files apart by their zip parts, whatever they are called or declared as', () => {
    expect(sniffFile(docx, { contentType: 'application/octet-stream', filename: 'report.xlsx' })).toBe('docx');
    expect(sniffFile(xlsx, { contentType: '', filename: 'x.docx' })).toBe('xlsx');
    expect(sniffFile(pptx, { contentType: 'text/html' })).toBe('pptx');
    expect(sniffFile(pdf, { contentType: 'text/plain', filename: 'notes.txt' })).toBe('pdf');
  });

  it('chooses among text formats by declared type, then extension, then the first bytes', () => {
    expect(sniffFile(Buffer.from('a,b\n1,2'), { contentType: 'text/csv' })).toBe('csv');
    expect(sniffFile(Buffer.from('a\tb'), { contentType: '', filename: 'data.tsv' })).toBe('tsv');
    expect(sniffFile(Buffer.from('# Title'), { contentType: '', filename: 'README.md' })).toBe('markdown');
    expect(sniffFile(Buffer.from('<!DOCTYPE html><p>x'), { contentType: '' })).toBe('html');
    expect(sniffFile(Buffer.from(' {"a":1}'), { contentType: '' })).toBe('json');
    expect(sniffFile(Buffer.from('just words'), { contentType: '' })).toBe('text');
  });

  it('knows images by their signatures', () => {
    expect(sniffFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), { contentType: '', filename: 'a.csv' })).toBe('image');
    expect(sniffFile(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), { contentType: 'text/plain' })).toBe('image');
    expect(sniffFile(Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '), { contentType: '' })).toBe('image');
  });

  it('has no parser for other binary files, nor for a zip that is no Office document', () => {
    expect(sniffFile(Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]), { contentType: '', filename: 'a.csv' })).toBeUndefined();
    expect(sniffFile(Buffer.from('PK\u0003\u0004 not really a zip'), { contentType: '' })).toBeUndefined();
  });
});

describe('convertFile', () => {
  it('turns a Word document into markdown with its heading, text and table', async () => {
    const { transformed } = (await convertFile(filePage(docx), fileContext()))!;
    expect(transformed.markdown).toContain('# Quarterly report');
    expect(transformed.markdown).toContain('Revenue grew & costs fell.');
    expect(transformed.markdown).toContain('| Region | Total |');
    expect(transformed.markdown).toContain('| North | 12 |');
    expect(transformed.html).toContain('<table>');
  });

  it('turns each sheet of a spreadsheet into a table under its name', async () => {
    const { transformed } = (await convertFile(filePage(xlsx), fileContext()))!;
    const markdown = transformed.markdown!;
    expect(markdown).toMatch(/## Sales\s+\| Region \| Total \|\s+\| --- \| --- \|\s+\| North \| 12 \|\s+\| South \| 7 \|/);
    expect(markdown.indexOf('## Costs')).toBeGreaterThan(markdown.indexOf('## Sales'));
    expect(markdown).toContain('| Rent | 3 |');
  });

  it('turns a presentation into one section per slide in deck order, with its notes', async () => {
    const { transformed } = (await convertFile(filePage(pptx), fileContext()))!;
    const markdown = transformed.markdown!;
    expect(markdown).toMatch(/## Slide 1\s+Opening slide\s+First point\s+### Notes\s+Remember the demo/);
    expect(markdown).toMatch(/## Slide 2\s+Closing slide/);
    // The notes page's slide-number placeholder is not a note.
    expect(markdown).not.toMatch(/Remember the demo\s+\d/);
  });

  it('turns CSV and TSV into a table, quoted commas and all', async () => {
    const csv = (await convertFile(filePage(Buffer.from('\ufeffname,quote\nAda,"a, b"\n'), 'text/csv'), fileContext()))!;
    expect(csv.transformed.markdown).toContain('| name | quote |');
    expect(csv.transformed.markdown).toContain('| Ada | a, b |');
    const tsv = (await convertFile(filePage(Buffer.from('x\ty\n1\t2\n'), 'text/tab-separated-values'), fileContext()))!;
    expect(tsv.transformed.markdown).toContain('| 1 | 2 |');
  });

  it('passes markdown through and leaves HTML, JSON and text to the content pipeline', async () => {
    const md = await convertFile(filePage(Buffer.from('# Notes\n\n- one'), 'text/markdown'), fileContext());
    expect(md?.transformed.markdown).toBe('# Notes\n\n- one');
    expect(await convertFile(filePage(Buffer.from('<html><p>x</p></html>'), 'text/html'), fileContext())).toBeUndefined();
    expect(await convertFile(filePage(Buffer.from('{"a":1}'), 'application/json'), fileContext())).toBeUndefined();
  });

  it('gives a PDF its pages, and page markers between them when asked', async () => {
    const parsers = [{ type: 'pdf' as const, pages: true, pageMarkers: true }];
    const result = (await convertFile(filePage(pdf), fileContext({ parsers })))!;
    expect(result.transformed.pages).toEqual(THREE_PAGE_TEXTS.map((markdown, i) => ({ pageNumber: i + 1, markdown })));
    expect(result.transformed.markdown).toBe(
      `${THREE_PAGE_TEXTS[0]}\n\n---\n\n<!-- page 2 -->\n\n${THREE_PAGE_TEXTS[1]}\n\n---\n\n<!-- page 3 -->\n\n${THREE_PAGE_TEXTS[2]}`,
    );
    expect(result.pdf).toEqual({ parsed: true, pages: 3 });
    const plain = (await convertFile(filePage(pdf), fileContext()))!;
    expect(plain.transformed.pages).toBeUndefined();
  });
});
