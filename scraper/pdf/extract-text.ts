/**
 * PDF text extraction with unpdf (Mozilla's pdf.js in a build that needs no DOM or worker thread),
 * page by page under the scrape's deadline. A page without a text layer (a scan) is read by OCR
 * (../files/ocr.ts) in mode `auto`, mode `ocr` reads every page so: such pages are drawn on a thread
 * of the PDF's own (render-page.ts), started for the first of them, which the deadline terminates.
 */
import { getDocumentProxy } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import { NonRetryablePageError } from '../../lib/errors.js';
import { FileThread } from '../files/isolated.js';
import { recognizeImage, recognizeParagraphs } from '../files/ocr.js';
import { ocrLayout, textLayerLayout, type PageLayout } from './layout.js';

/**
 * Time a page is allowed on average. A PDF whose pages need more than the time left is refused up
 * front rather than parsed half way: a truncated document would pass for the whole one.
 */
export const PDF_PAGE_BUDGET_MS = 100;
/** Rendering a page at twice its size and reading it: 0.3–0.6 s here (bench/RESULTS.md, "parse"), with room. */
export const OCR_PAGE_BUDGET_MS = 2_000;

export interface PdfText {
  /** Text of each parsed page, in order. */
  pages: string[];
  /** Each parsed page's blocks and size (layout.ts), in order. */
  layouts: PageLayout[];
  /** Pages in the document; more than `pages.length` when `maxPages` cut it short. */
  numPages: number;
  /** Pages read by OCR rather than from the text layer. */
  ocrPages: number;
  title?: string;
}

export interface PdfLimits {
  maxPages?: number;
  /** Firecrawl's PDF modes: `fast` reads the text layer only, `auto` (the default) OCRs pages without one, `ocr` OCRs every page. */
  mode?: 'fast' | 'auto' | 'ocr';
  /** OCR'd pages keep Tesseract's paragraph boxes, for `blocks`. */
  boxes?: boolean;
  /** Absolute wall-clock deadline (epoch ms) of the scrape. */
  deadline: number;
  signal: AbortSignal;
}

export async function extractPdfText(data: Buffer, limits: PdfLimits): Promise<PdfText> {
  // pdf.js takes ownership of (detaches) the array it is given, so it gets a copy. Its warnings stay
  // out of the worker log. (pdf.js 5 no longer generates font code with eval, so there is no
  // `isEvalSupported` to turn off: the bundle unpdf ships has no `new Function`.)
  const pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 }).catch((err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    throw new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', `The PDF could not be read: ${reason}`, {
      details: { contentType: 'application/pdf' },
      cause: err,
    });
  });
  let renderer: FileThread | undefined;
  try {
    const numPages = pdf.numPages;
    const toParse = Math.min(numPages, limits.maxPages ?? numPages);
    const mode = limits.mode ?? 'auto';
    const pageBudget = mode === 'ocr' ? OCR_PAGE_BUDGET_MS : PDF_PAGE_BUDGET_MS;
    const outOfTime = () => insufficientTime(toParse, limits.deadline, pageBudget);
    if (toParse * pageBudget > limits.deadline - Date.now()) throw outOfTime();
    const layouts: PageLayout[] = [];
    let ocrPages = 0;
    for (let n = 1; n <= toParse; n++) {
      if (limits.signal.aborted || Date.now() >= limits.deadline) throw outOfTime();
      const page = await pdf.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const layout = textLayerLayout((await page.getTextContent()).items, viewport);
      page.cleanup();
      if (mode === 'ocr' || (mode === 'auto' && !layout.text)) {
        renderer ??= openRenderer(data, limits, outOfTime);
        const image = Buffer.from(await renderer.request({ type: 'render', pageNumber: n }));
        if (limits.boxes) {
          const { text, paragraphs } = await recognizeParagraphs(image, limits);
          layouts.push(ocrLayout(text, viewport, { paragraphs, image: pngSize(image) }));
        } else layouts.push(ocrLayout(await recognizeImage(image, limits), viewport));
        ocrPages++;
      } else layouts.push(layout);
    }
    return { pages: layouts.map((l) => l.text), layouts, numPages, ocrPages, title: await documentTitle(pdf) };
  } finally {
    renderer?.close();
    await pdf.loadingTask.destroy();
  }
}

/** A PNG's size, from its header (render-page.ts writes PNGs). */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The PDF's drawing thread, holding its own copy of the file. */
function openRenderer(data: Buffer, limits: PdfLimits, outOfTime: () => Error): FileThread {
  const thread = new FileThread('PDF', limits, outOfTime);
  // A file the thread cannot open fails each page's request, which comes after this one.
  thread.request({ type: 'open-pdf', data: new Uint8Array(data) }).catch(() => undefined);
  return thread;
}

async function documentTitle(pdf: PDFDocumentProxy): Promise<string | undefined> {
  const { info } = await pdf.getMetadata().catch(() => ({ info: undefined }));
  const title = (info as { Title?: unknown } | undefined)?.Title;
  return typeof title === 'string' && title.trim() ? title.trim() : undefined;
}

function insufficientTime(pages: number, deadline: number, pageBudgetMs: number): NonRetryablePageError {
  // The suggestion leaves the fetch a few seconds on top of the pages' budget.
  const suggestedMs = Math.ceil((pages * pageBudgetMs) / 1000) * 1000 + 5_000;
  return new NonRetryablePageError(
    'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
    `Insufficient time to process PDF of ${pages} pages. Please increase the timeout parameter in your scrape ` +
      `request to at least ${suggestedMs}ms, or parse fewer pages with parsers: [{ type: "pdf", maxPages }].`,
    { details: { numPages: pages, remainingMs: Math.max(0, deadline - Date.now()) } },
  );
}
