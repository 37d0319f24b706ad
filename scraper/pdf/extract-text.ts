/**
 * PDF text extraction with unpdf (Mozilla's pdf.js in a build that needs no DOM or worker thread),
 * page by page under the scrape's deadline, all of it on a thread of the PDF's own (pdf-thread.ts
 * through ../files/isolated.ts), which the deadline terminates: this (the worker's main) thread only
 * posts page numbers and gets back each page's blocks. A page without a text layer (a scan) is read
 * by OCR (../files/ocr.ts) in mode `auto`, mode `ocr` reads every page so: such a page is drawn on
 * the same thread, from the document it already opened.
 */
import { NonRetryablePageError } from '../../lib/errors.js';
import { FileThread } from '../files/isolated.js';
import { imageSize } from '../files/image-size.js';
import { recognizeImage, recognizeParagraphs } from '../files/ocr.js';
import { ocrLayout, type PageLayout } from './layout.js';

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
  const mode = limits.mode ?? 'auto';
  const pageBudget = mode === 'ocr' ? OCR_PAGE_BUDGET_MS : PDF_PAGE_BUDGET_MS;
  /** Pages to parse, once the file is open. */
  let toParse: number | undefined;
  const outOfTime = () => insufficientTime(toParse, limits.deadline, pageBudget);
  if (limits.signal.aborted || Date.now() >= limits.deadline) throw outOfTime();
  const thread = new FileThread('PDF', limits, outOfTime);
  try {
    // The thread gets a copy of the file, moved rather than copied again; the caller keeps its Buffer.
    const copy = new Uint8Array(data);
    const { numPages, title } = await thread.request({ type: 'open-pdf', data: copy }, [copy.buffer as ArrayBuffer]);
    toParse = Math.min(numPages, limits.maxPages ?? numPages);
    if (toParse * pageBudget > limits.deadline - Date.now()) throw outOfTime();
    const layouts: PageLayout[] = [];
    let ocrPages = 0;
    for (let n = 1; n <= toParse; n++) {
      if (limits.signal.aborted || Date.now() >= limits.deadline) throw outOfTime();
      const layout = await thread.request({ type: 'page-text', pageNumber: n });
      if (mode === 'ocr' || (mode === 'auto' && !layout.text)) {
        const image = Buffer.from(await thread.request({ type: 'render', pageNumber: n }));
        if (limits.boxes) {
          const { text, paragraphs } = await recognizeParagraphs(image, limits);
          layouts.push(ocrLayout(text, layout, { paragraphs, image: imageSize(image)! }));
        } else layouts.push(ocrLayout(await recognizeImage(image, limits), layout));
        ocrPages++;
      } else layouts.push(layout);
    }
    return { pages: layouts.map((l) => l.text), layouts, numPages, ocrPages, title };
  } finally {
    thread.close();
  }
}

/** `pages` is unknown when the time ran out before the file was open. */
function insufficientTime(pages: number | undefined, deadline: number, pageBudgetMs: number): NonRetryablePageError {
  const remainingMs = Math.max(0, deadline - Date.now());
  if (pages === undefined) {
    return new NonRetryablePageError(
      'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
      'Insufficient time to open the PDF. Please increase the timeout parameter in your scrape request.',
      { details: { remainingMs } },
    );
  }
  // The suggestion leaves the fetch a few seconds on top of the pages' budget.
  const suggestedMs = Math.ceil((pages * pageBudgetMs) / 1000) * 1000 + 5_000;
  return new NonRetryablePageError(
    'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
    `Insufficient time to process PDF of ${pages} pages. Please increase the timeout parameter in your scrape ` +
      `request to at least ${suggestedMs}ms, or parse fewer pages with parsers: [{ type: "pdf", maxPages }].`,
    { details: { numPages: pages, remainingMs } },
  );
}
