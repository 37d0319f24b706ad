import { PDFDocument, StandardFonts } from 'pdf-lib';
import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageCredits } from '../../../lib/credits.js';
import { stopOcr } from '../../../scraper/files/ocr.js';
import { isPdf } from '../../../scraper/pdf/detect.js';
import { extractPdfText, PDF_PAGE_BUDGET_MS } from '../../../scraper/pdf/extract-text.js';
import { transformPdf } from '../../../scraper/pdf/pdf-content.js';
import { makeDrawingBombPdf, makeLongPdf, makePasswordPdf, makePdf, makeTextBombPdf, THREE_PAGE_TEXTS } from '../../helpers/pdf-fixtures.js';

const WANT = { markdown: true, html: false, rawHtml: false, links: true, images: false };
const roomy = () => ({ deadline: Date.now() + 30_000, signal: new AbortController().signal });

let threePages: Buffer;
beforeAll(async () => {
  threePages = await makePdf(THREE_PAGE_TEXTS, 'Three Animals');
});
afterAll(() => stopOcr());

describe('isPdf', () => {
  it('trusts a PDF content type', () => {
    expect(isPdf({ contentType: 'application/pdf' })).toBe(true);
    expect(isPdf({ contentType: 'application/x-pdf', body: Buffer.from('x') })).toBe(true);
  });

  it('recognises the %PDF- magic bytes under a generic or missing content type', () => {
    expect(isPdf({ contentType: 'application/octet-stream', body: threePages })).toBe(true);
    expect(isPdf({ contentType: '', body: Buffer.concat([Buffer.from('\r\n '), threePages]) })).toBe(true);
  });

  it('ignores the extension-like text of other bodies', () => {
    expect(isPdf({ contentType: 'text/html', body: Buffer.from('<html>report.pdf</html>') })).toBe(false);
    expect(isPdf({ contentType: 'text/plain', body: Buffer.from('see %PDF-1.7 below') })).toBe(false);
  });
});

describe('extractPdfText', () => {
  it('returns each page in order with the page count and title', async () => {
    const text = await extractPdfText(threePages, roomy());
    expect(text.numPages).toBe(3);
    expect(text.pages).toEqual(THREE_PAGE_TEXTS);
    expect(text.title).toBe('Three Animals');
  });

  it('stops at maxPages but still reports the whole page count', async () => {
    const text = await extractPdfText(threePages, { ...roomy(), maxPages: 2 });
    expect(text.pages).toEqual(THREE_PAGE_TEXTS.slice(0, 2));
    expect(text.numPages).toBe(3);
  });

  it('refuses a PDF whose pages need more than the time left', async () => {
    const long = await makeLongPdf(60);
    const deadline = Date.now() + 60 * PDF_PAGE_BUDGET_MS - 1_000;
    await expect(extractPdfText(long, { deadline, signal: new AbortController().signal })).rejects.toMatchObject({
      code: 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
      message: expect.stringContaining('Insufficient time to process PDF of 60 pages'),
    });
  });

  it('fails with the same error, not partial text, when the deadline passes mid-way', async () => {
    const aborted = AbortSignal.abort();
    await expect(extractPdfText(threePages, { deadline: Date.now() + 30_000, signal: aborted })).rejects.toMatchObject({
      code: 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
    });
  });

  it('reports an unreadable file as unsupported', async () => {
    const broken = Buffer.from('%PDF-1.7\nthis is not really a pdf');
    await expect(extractPdfText(broken, roomy())).rejects.toMatchObject({ code: 'SCRAPE_UNSUPPORTED_FILE_ERROR' });
  });

  it('reports a password-protected file as unsupported, saying so', async () => {
    await expect(extractPdfText(await makePasswordPdf(), roomy())).rejects.toMatchObject({
      code: 'SCRAPE_UNSUPPORTED_FILE_ERROR',
      message: expect.stringContaining('password'),
    });
  });
});

describe('transformPdf', () => {
  it('parses into markdown with numPages, billed one credit per page', async () => {
    const { transformed, pdf } = await transformPdf(threePages, [{ type: 'pdf' }], { ...WANT, html: true }, roomy());
    for (const text of THREE_PAGE_TEXTS) expect(transformed.markdown).toContain(text);
    expect(transformed.html).toContain(`<p>${THREE_PAGE_TEXTS[1]}</p>`);
    expect(transformed.links).toEqual([]);
    expect(transformed.metadata).toMatchObject({ numPages: 3, title: 'Three Animals' });
    expect(pageCredits({ succeeded: true, pdf })).toBe(3);
  });

  it('bills only the pages parsed under maxPages', async () => {
    const { transformed, pdf } = await transformPdf(threePages, [{ type: 'pdf', maxPages: 1 }], WANT, roomy());
    expect(transformed.markdown).toBe(THREE_PAGE_TEXTS[0]);
    expect(pageCredits({ succeeded: true, pdf })).toBe(1);
  });

  it('without the pdf parser returns the bytes base64-encoded, billed flat', async () => {
    const { transformed, pdf } = await transformPdf(threePages, [], WANT, roomy());
    expect(Buffer.from(transformed.markdown!, 'base64').equals(threePages)).toBe(true);
    expect(transformed.metadata).toEqual({});
    expect(pageCredits({ succeeded: true, pdf })).toBe(1);
  });

  it('refuses an empty body', async () => {
    await expect(transformPdf(Buffer.alloc(0), [], WANT, roomy())).rejects.toMatchObject({
      code: 'SCRAPE_UNSUPPORTED_FILE_ERROR',
    });
  });
});

/**
 * The extraction's error code, 'converted', or `stillBusy` when a 20 s timer of this (main) thread
 * fires first: the watchdog that shows whether the main thread was held.
 */
function outcomeBefore(extraction: Promise<unknown>, stillBusy: string): Promise<string | undefined> {
  const watchdog = new Promise<string>((resolve) => setTimeout(() => resolve(stillBusy), 20_000).unref());
  return Promise.race([extraction.then(() => 'converted', (err: { code?: string }) => err.code), watchdog]);
}

describe('rendering for OCR', () => {
  it("stops a page that draws for minutes at the request's deadline, with a 4xx code", async () => {
    const bomb = await makeDrawingBombPdf(6);
    const deadline = Date.now() + 3_000;
    // On the main thread this page held the extraction for minutes past its deadline; on its own
    // thread the deadline terminates the drawing. The watchdog is a timer of this (main) thread too.
    expect(await outcomeBefore(extractPdfText(bomb, { deadline, signal: new AbortController().signal }), 'still drawing')).toBe('SCRAPE_PDF_INSUFFICIENT_TIME_ERROR');
  }, 30_000);
});

describe('reading the text layer', () => {
  it("stops a page whose text takes minutes to read at the request's deadline, and the worker's thread runs on meanwhile", async () => {
    // 10^5 runs of text through forms nested five deep: pdf.js took 42 s for this page's text.
    const bomb = await makeTextBombPdf(5);
    const deadline = Date.now() + 3_000;
    // On the worker's main thread pdf.js read this page to its end, 42 s of that thread's CPU, and the
    // deadline was checked only after it; on the PDF's own thread the deadline terminates the reading,
    // and this (main) thread's timers fire meanwhile.
    let ticked = false;
    setTimeout(() => (ticked = true), 500).unref();
    expect(await outcomeBefore(extractPdfText(bomb, { deadline, signal: new AbortController().signal }), 'still reading')).toBe('SCRAPE_PDF_INSUFFICIENT_TIME_ERROR');
    expect(ticked).toBe(true);
  }, 60_000);

  it('reads an ordinary page of the same shape, forms and all', async () => {
    const text = await extractPdfText(await makeTextBombPdf(1), roomy());
    // The runs share a position, so pdf.js gives them as one line.
    expect(text.pages).toEqual([`Title${'word'.repeat(10)}`]);
  });
});

describe('blocks', () => {
  it("gives each page its text blocks in Firecrawl's shape: boxes on the page, spans of the markdown", async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([600, 800]);
    // A heading at the top left and, after a gap, a paragraph of two lines lower down.
    page.drawText('Heading at the top', { x: 60, y: 720, size: 24, font });
    page.drawText('First line of the body', { x: 60, y: 400, size: 12, font });
    page.drawText('Second line of the body', { x: 60, y: 386, size: 12, font });
    doc.addPage([600, 800]).drawText('Second page text', { x: 300, y: 100, size: 12, font });
    const pdf = Buffer.from(await doc.save());

    const parsers = [{ type: 'pdf' as const, blocks: true, pageMarkers: true }];
    const { transformed } = await transformPdf(pdf, parsers, WANT, roomy());
    const markdown = transformed.markdown!;
    const blocks = transformed.blocks!;
    expect(blocks.map((p) => ({ pageNumber: p.pageNumber, width: p.width, height: p.height, status: p.status }))).toEqual([
      { pageNumber: 1, width: 600, height: 800, status: 'ok' },
      { pageNumber: 2, width: 600, height: 800, status: 'ok' },
    ]);
    const items = blocks.flatMap((p) => p.items);
    expect(items.map((b) => b.id)).toEqual(items.map((b) => `p${b.id[1]}.b${b.readingOrder}`));
    // Each block's span is where its content is in the markdown, page markers and all.
    for (const item of items) expect(markdown.slice(...item.markdownSpan!)).toBe(item.content);
    expect(items.map((b) => b.content).join(' | ')).toMatch(/^Heading at the top \| First line of the body\s+Second line of the body \| Second page text$/);
    for (const item of items) expect(item).toMatchObject({ type: 'text', label: null, source: 'text-layer', confidence: { layout: null, ocr: null } });
    // Boxes are fractions of the page from its top left: the heading near the top, the body below
    // it, the second page's text in its lower right quarter.
    const [heading, body] = blocks[0]!.items;
    expect(heading!.bbox![0]).toBeCloseTo(0.1, 2);
    expect(heading!.bbox![1]).toBeGreaterThan(0.05);
    expect(heading!.bbox![3]).toBeLessThan(0.12);
    expect(body!.bbox![1]).toBeGreaterThan(heading!.bbox![3]);
    expect(body!.bbox![3]).toBeCloseTo(1 - 386 / 800, 2);
    const [second] = blocks[1]!.items;
    expect(second!.bbox![0]).toBeCloseTo(0.5, 2);
    expect(second!.bbox![1]).toBeGreaterThan(0.8);
    for (const { bbox } of items) for (const v of bbox!) expect(v >= 0 && v <= 1).toBe(true);
  });

  it("boxes a scanned page's blocks where OCR found them, with Tesseract's confidence", async () => {
    // A page of text drawn into an image, and that image alone on a page: a scan, no text layer.
    const text = await PDFDocument.create();
    const font = await text.embedFont(StandardFonts.Helvetica);
    text.addPage([600, 400]).drawText('Invoice number 4821', { x: 60, y: 300, size: 28, font });
    const png = Buffer.from(await renderPageAsImage(await getDocumentProxy(new Uint8Array(await text.save())), 1, { canvasImport: () => import('@napi-rs/canvas'), scale: 2 }));
    const scan = await PDFDocument.create();
    scan.addPage([600, 400]).drawImage(await scan.embedPng(png), { x: 0, y: 0, width: 600, height: 400 });

    const { transformed } = await transformPdf(Buffer.from(await scan.save()), [{ type: 'pdf', blocks: true }], WANT, roomy());
    expect(transformed.markdown).toBe('Invoice number 4821');
    const [block] = transformed.blocks![0]!.items;
    expect(block).toMatchObject({ id: 'p1.b0', content: 'Invoice number 4821', source: 'ocr', markdownSpan: [0, 19] });
    expect(block!.confidence.ocr).toBeGreaterThan(0.5);
    // Drawn 60 points from the left and its baseline 100 from the top of a 600 × 400 page.
    const [x0, y0, x1, y1] = block!.bbox!;
    expect(x0).toBeCloseTo(0.1, 1);
    expect(y0).toBeGreaterThan(0.15);
    expect(y1).toBeLessThan(0.3);
    expect(x1).toBeGreaterThan(0.4);
  });

  it('leaves blocks out unless asked', async () => {
    const { transformed } = await transformPdf(threePages, [{ type: 'pdf' }], WANT, roomy());
    expect(transformed.blocks).toBeUndefined();
  });
});
