/**
 * POST /v2/parse end to end (real API, Temporal, worker and Postgres), through Firecrawl's SDK
 * unmodified and through raw multipart requests; and scrapes of URLs that serve the same files.
 * Every file is built in the test.
 */
import http from 'node:http';
import Firecrawl from '@mendable/firecrawl-js';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { makeDocx, makeEpub, makeOdp, makeOds, makeOdt, makePptx, makeRtf, makeXlsx, makeZipBomb } from '../helpers/office-fixtures.js';
import { makePdf, THREE_PAGE_TEXTS } from '../helpers/pdf-fixtures.js';
import { e2eContext } from './context.js';
import { startFileServer, type PageServer } from '../helpers/page-server.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);
const firecrawl = new Firecrawl({ apiKey, apiUrl });

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const docx = makeDocx({ heading: 'Parse report', paragraphs: ['Uploaded through the SDK.'], table: [['Key', 'Value'], ['alpha', '1']] });
let xlsx: Buffer;
let pdf: Buffer;
let files: PageServer;
/** A page whose screenshot is the OCR test's image: rendered by the stack's own Chromium. */
const INVOICE_PAGE = `<!doctype html><html><body style="margin:0;padding:24px;background:#fff;font:32px sans-serif">
<p>Invoice number 4821 for Trawl</p><p>Total due 1250 EUR</p></body></html>`;
let site: string;

beforeAll(async () => {
  xlsx = await makeXlsx({ Inventory: [['Item', 'Count'], ['Bolts', 40]] });
  pdf = await makePdf(THREE_PAGE_TEXTS);
  // The files behind URLs, served as a server would (and one under a generic type and no extension).
  const routes: Record<string, { type: string; body: Buffer | string }> = {
    '/invoice': { type: 'text/html', body: INVOICE_PAGE },
    '/report.docx': { type: DOCX_TYPE, body: docx },
    '/download?id=sheet': { type: 'application/octet-stream', body: xlsx },
    '/data.csv': { type: 'text/csv; charset=utf-8', body: Buffer.from('city,population\nOslo,700000\n') },
    '/minutes.odt': { type: 'application/vnd.oasis.opendocument.text', body: makeOdt({ heading: 'Board minutes', paragraphs: ['Served as ODT.'] }) },
    '/files/stock': { type: 'application/octet-stream', body: makeOds({ Stock: [['Part', 'Left'], ['Nuts', 9]] }) },
    '/memo.rtf': { type: 'application/rtf', body: makeRtf() },
    '/book.epub': { type: 'application/epub+zip', body: makeEpub('Served Book', [{ heading: 'Only Chapter', text: 'Read from a URL.' }]) },
  };
  files = await startFileServer(routes);
  site = files.origin;
});
afterAll(async () => {
  await files?.close();
});

/** A multipart request as any client would build it, with FormData. */
async function parse(file: { data: Buffer | string; name: string; type?: string } | undefined, options?: unknown, extra: Record<string, string> = {}) {
  const form = new FormData();
  if (options !== undefined) form.append('options', typeof options === 'string' ? options : JSON.stringify(options));
  for (const [name, value] of Object.entries(extra)) form.append(name, value);
  if (file) form.append('file', new Blob([typeof file.data === 'string' ? file.data : new Uint8Array(file.data)], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(`${apiUrl}/v2/parse`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * One multipart upload on a connection of its own (no keep-alive socket from an earlier request,
 * which the server may be closing just as a 50 MB body starts to go out).
 */
async function postOnFreshConnection(data: Buffer, filename: string): Promise<{ status: number; body: any }> {
  const boundary = 'trawl-test-boundary';
  const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\n`);
  const body = Buffer.concat([head, data, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const url = new URL('/v2/parse', apiUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('POST /v2/parse through the SDK', () => {
  it("parses a Word document with the SDK's parse(), unmodified", async () => {
    const doc = await firecrawl.parse({ data: docx, filename: 'report.docx', contentType: DOCX_TYPE }, { formats: ['markdown', 'html'] });
    expect(doc.markdown).toContain('# Parse report');
    expect(doc.markdown).toContain('| alpha | 1 |');
    expect(doc.html).toContain('<table>');
    expect(doc.metadata).toMatchObject({ statusCode: 200, creditsUsed: 1, contentType: DOCX_TYPE });
    expect(doc.metadata?.sourceURL).toMatch(/^file:\/\/local\/[0-9a-f-]{36}\/report\.docx$/);
  });

  it('gives a PDF its pages and blocks, billed per page', async () => {
    const doc = await firecrawl.parse({ data: pdf, filename: 'three.pdf' }, { parsers: [{ type: 'pdf', pages: true, blocks: true }] });
    expect(doc.pages).toEqual(THREE_PAGE_TEXTS.map((markdown, i) => ({ pageNumber: i + 1, markdown })));
    expect(doc.metadata).toMatchObject({ numPages: 3, creditsUsed: 3 });
    expect(doc.blocks?.map((page) => [page.pageNumber, page.items.map((b) => b.content)])).toEqual(THREE_PAGE_TEXTS.map((text, i) => [i + 1, [text]]));
    const first = doc.blocks![0]!.items[0]!;
    expect(first).toMatchObject({ id: 'p1.b0', type: 'text', readingOrder: 0, source: 'text-layer', markdownSpan: [0, THREE_PAGE_TEXTS[0]!.length] });
    expect(first.bbox).toHaveLength(4);
  });
});

describe('POST /v2/parse, raw multipart', () => {
  it('reads a spreadsheet as one table per sheet, whatever its name and declared type say', async () => {
    const res = await parse({ data: xlsx, name: 'misnamed.txt', type: 'text/plain' }, { formats: ['markdown'] });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toMatch(/## Inventory\s+\| Item \| Count \|\s+\| --- \| --- \|\s+\| Bolts \| 40 \|/);
  });

  it('reads a presentation, CSV, HTML and markdown; options may come as separate fields', async () => {
    const slides = await parse({ data: makePptx([{ texts: ['Deck opening'], notes: 'Say hello' }]), name: 'deck.pptx' });
    expect(slides.body.data.markdown).toMatch(/## Slide 1\s+Deck opening\s+### Notes\s+Say hello/);
    const csv = await parse({ data: 'a,b\n1,2\n', name: 'numbers.csv', type: 'text/csv' });
    expect(csv.body.data.markdown).toContain('| 1 | 2 |');
    const html = await parse({ data: '<html><body><h1>Hi</h1><a href="https://example.com/x">x</a></body></html>', name: 'page.html' }, undefined, {
      formats: '["markdown","links"]',
    });
    expect(html.status).toBe(200);
    expect(html.body.data.markdown).toContain('# Hi');
    expect(html.body.data.links).toEqual(['https://example.com/x']);
    const md = await parse({ data: '# Notes\n\nkept as is', name: 'notes.md' });
    expect(md.body.data.markdown).toBe('# Notes\n\nkept as is');
  });

  it.each([
    [{ waitFor: 1000 }, 'parse does not support waitFor'],
    [{ actions: [{ type: 'wait', milliseconds: 10 }] }, 'parse does not support actions'],
    [{ mobile: true }, 'parse does not support mobile rendering'],
    [{ location: { country: 'DE' } }, 'parse does not support location overrides'],
    [{ proxy: 'stealth' }, "parse only supports proxy values of 'basic' or 'auto'"],
    [{ maxAge: 0 }, 'parse does not support cache/index options'],
    [{ formats: ['screenshot'] }, 'parse does not support screenshot format'],
  ])('refuses %j with 400: %s', async (options, message) => {
    const res = await parse({ data: docx, name: 'r.docx' }, options);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(res.body.error).toContain(message);
  });

  it("answers Firecrawl's errors for a missing file, bad options JSON and an unsupported file", async () => {
    expect(await parse(undefined, {})).toMatchObject({ status: 400, body: { success: false, error: 'File is required' } });
    expect(await parse({ data: docx, name: 'r.docx' }, '{not json')).toMatchObject({ status: 400, body: { error: 'Invalid options JSON' } });
    const gzip = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await parse({ data: gzip, name: 'archive.gz', type: 'application/gzip' })).toMatchObject({
      status: 415,
      body: { success: false, code: 'SCRAPE_UNSUPPORTED_FILE_ERROR' },
    });
    // An image whose bytes end after its signature: the OCR engine cannot read it, and says so.
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    expect(await parse({ data: png, name: 'broken.png', type: 'image/png' })).toMatchObject({
      status: 422,
      body: { success: false, code: 'PARSE_FAILED' },
    });
    const json = await api('/v2/parse', { body: { url: 'https://example.com' } });
    expect(json).toMatchObject({ status: 400, body: { success: false, error: 'File is required' } });
  });

  it('refuses a zip bomb with 422 PARSE_FAILED, and a file over 50 MB with 413', async () => {
    const bomb = await parse({ data: makeZipBomb(30 * 1024 * 1024), name: 'bomb.docx' });
    expect(bomb.status).toBe(422);
    expect(bomb.body).toMatchObject({ success: false, code: 'PARSE_FAILED' });
    const big = await postOnFreshConnection(Buffer.alloc(50 * 1024 * 1024 + 1, 0x61), 'big.txt');
    expect(big).toMatchObject({ status: 413, body: { success: false, code: 'PAYLOAD_TOO_LARGE' } });
  });
});

describe('OpenDocument, EPUB and RTF uploads', () => {
  it('reads ODT, ODS, ODP, EPUB and RTF as the Office files they resemble, typed by their bytes', async () => {
    const text = await parse({ data: makeOdt({ heading: 'Open report', paragraphs: ['Uploaded as ODT.'], table: [['Key', 'Value'], ['beta', '2']] }), name: 'report.odt' });
    expect(text.status).toBe(200);
    expect(text.body.data.markdown).toMatch(/# Open report\s+Uploaded as ODT\.\s+\| Key \| Value \|\s+\| --- \| --- \|\s+\| beta \| 2 \|/);
    expect(text.body.data.metadata).toMatchObject({ contentType: 'application/vnd.oasis.opendocument.text', creditsUsed: 1 });
    const sheet = await parse({ data: makeOds({ Inventory: [['Item', 'Count'], ['Bolts', 40]] }), name: 'misnamed.csv', type: 'text/csv' });
    expect(sheet.body.data.markdown).toMatch(/## Inventory\s+\| Item \| Count \|\s+\| --- \| --- \|\s+\| Bolts \| 40 \|/);
    const deck = await parse({ data: makeOdp([{ texts: ['Deck opening'], notes: 'Say hello' }]), name: 'deck.odp' });
    expect(deck.body.data.markdown).toMatch(/## Slide 1\s+Deck opening\s+### Notes\s+Say hello/);
    const book = await firecrawl.parse({ data: makeEpub('Uploaded Book', [{ heading: 'First', text: 'One.' }, { heading: 'Second', text: 'Two.' }]), filename: 'book.epub' });
    expect(book.markdown).toMatch(/## First\s+One\.\s+## Second\s+Two\./);
    expect(book.metadata?.title).toBe('Uploaded Book');
    const memo = await parse({ data: makeRtf(), name: 'memo.rtf', type: 'application/rtf' });
    expect(memo.body.data.markdown).toMatch(/^# Annual review/);
    expect(memo.body.data.markdown).toContain('Visit [example](https://example.com/rtf) today.');
  });

  it('refuses a hostile ODT (an external entity) with 422 PARSE_FAILED', async () => {
    const xxe = makeOdt({ heading: 'H', paragraphs: ['p'], prolog: '<!DOCTYPE office:document-content [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', rawParagraph: '&xxe;' });
    const res = await parse({ data: xxe, name: 'x.odt' });
    expect(res).toMatchObject({ status: 422, body: { success: false, code: 'PARSE_FAILED' } });
    expect(JSON.stringify(res.body)).not.toContain('root:');
  });
});

describe('the two-step upload', () => {
  it('parses a file PUT to the upload URL, by its reference, once', async () => {
    const started = await api('/v2/parse/upload-url', { body: { filename: 'report.docx', contentType: DOCX_TYPE } });
    expect(started.status).toBe(200);
    const { uploadUrl, uploadRef, method, headers } = started.body.data;
    expect(method).toBe('PUT');
    // Before the bytes arrive there is nothing to parse.
    expect(await api('/v2/parse', { body: { uploadRef } })).toMatchObject({
      status: 400,
      body: { error: 'Uploaded file is not available. Upload the file before parsing.' },
    });
    const put = await fetch(uploadUrl, { method: 'PUT', headers, body: new Uint8Array(docx) });
    expect(put.status).toBe(200);
    // The reference is good for one PUT, and only with its own id.
    const again = await fetch(uploadUrl, { method: 'PUT', headers, body: new Uint8Array(docx) });
    expect(again.status).toBe(404);
    const parsed = await api('/v2/parse', { body: { uploadRef, formats: ['markdown'] } });
    expect(parsed.status).toBe(200);
    expect(parsed.body.data.markdown).toContain('# Parse report');
    // The parse consumed the upload.
    expect((await api('/v2/parse', { body: { uploadRef } })).status).toBe(400);
  });

  it('refuses a PUT with a wrong reference or a malformed id as 404, in the envelope', async () => {
    const started = await api('/v2/parse/upload-url', { body: { filename: 'a.csv' } });
    const url = new URL(started.body.data.uploadUrl);
    url.searchParams.set('uploadRef', 'not-the-reference');
    const wrong = await fetch(url, { method: 'PUT', body: 'a,b' });
    expect(wrong.status).toBe(404);
    expect(await wrong.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const bad = await fetch(`${apiUrl}/v2/parse/upload/not-a-uuid?uploadRef=x`, { method: 'PUT', body: 'a,b' });
    expect(bad.status).toBe(404);
  });
});

describe('OCR of images', () => {
  it('reads the text of a PNG upload offline, and of an image URL only with the image parser', async () => {
    const shot = await api('/v2/scrape', { body: { url: `${site}/invoice`, formats: [{ type: 'screenshot', viewport: { width: 900, height: 200 } }] } });
    expect(shot.status).toBe(200);
    const png = Buffer.from(await (await fetch(shot.body.data.screenshot)).arrayBuffer());
    const doc = await firecrawl.parse({ data: png, filename: 'invoice.png', contentType: 'image/png' });
    expect(doc.markdown).toContain('Invoice number 4821 for Trawl');
    expect(doc.markdown).toContain('Total due 1250 EUR');
    expect(doc.metadata).toMatchObject({ contentType: 'image/png', creditsUsed: 1 });
    // An image served by a site: Firecrawl's `image` parser, left out of Trawl's scrape default.
    const url = shot.body.data.screenshot as string;
    const withParser = await api('/v2/scrape', { body: { url, parsers: ['pdf', 'image'] } });
    expect(withParser.status).toBe(200);
    expect(withParser.body.data.markdown).toContain('Invoice number 4821');
    const without = await api('/v2/scrape', { body: { url } });
    expect(without).toMatchObject({ status: 415, body: { code: 'SCRAPE_UNSUPPORTED_FILE_ERROR' } });

    // A scanned PDF: one page holding only that image, no text layer.
    const scan = await PDFDocument.create();
    const embedded = await scan.embedPng(png);
    scan.addPage([612, 160]).drawImage(embedded, { x: 0, y: 0, width: 612, height: 136 });
    const scanned = Buffer.from(await scan.save());
    const auto = await firecrawl.parse({ data: scanned, filename: 'scan.pdf' });
    expect(auto.markdown).toContain('Invoice number 4821 for Trawl');
    expect(auto.metadata).toMatchObject({ numPages: 1, ocrPages: 1, creditsUsed: 1 });
    const fast = await firecrawl.parse({ data: scanned, filename: 'scan.pdf' }, { parsers: [{ type: 'pdf', mode: 'fast' }] });
    expect(fast.markdown).toBe('');
    expect(fast.warning).toContain('no extractable text');
  });
});

describe('scrapes of URLs that serve files', () => {
  it('converts a Word document, a spreadsheet behind a generic type, and CSV', async () => {
    const word = await api('/v2/scrape', { body: { url: `${site}/report.docx` } });
    expect(word.status).toBe(200);
    expect(word.body.data.markdown).toContain('# Parse report');
    const sheet = await api('/v2/scrape', { body: { url: `${site}/download?id=sheet` } });
    expect(sheet.body.data.markdown).toContain('| Bolts | 40 |');
    const csv = await api('/v2/scrape', { body: { url: `${site}/data.csv` } });
    expect(csv.body.data.markdown).toContain('| Oslo | 700000 |');
  });

  it('converts ODT, an ODS behind a generic type, RTF and EPUB', async () => {
    const odt = await api('/v2/scrape', { body: { url: `${site}/minutes.odt` } });
    expect(odt.status).toBe(200);
    expect(odt.body.data.markdown).toMatch(/# Board minutes\s+Served as ODT\./);
    const ods = await api('/v2/scrape', { body: { url: `${site}/files/stock` } });
    expect(ods.body.data.markdown).toContain('| Nuts | 9 |');
    const rtf = await api('/v2/scrape', { body: { url: `${site}/memo.rtf` } });
    expect(rtf.body.data.markdown).toContain('Café sales rose €5 million.');
    const epub = await api('/v2/scrape', { body: { url: `${site}/book.epub` } });
    expect(epub.body.data.markdown).toMatch(/## Only Chapter\s+Read from a URL\./);
  });
});
