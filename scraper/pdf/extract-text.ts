/**
 * PDF text extraction with unpdf (Mozilla's pdf.js in a build that needs no canvas, DOM or worker
 * thread), page by page under the scrape's deadline.
 */
import { getDocumentProxy } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import { NonRetryablePageError } from '../../lib/errors.js';

/**
 * Time a page is allowed on average. A PDF whose pages need more than the time left is refused up
 * front rather than parsed half way: a truncated document would pass for the whole one.
 */
export const PDF_PAGE_BUDGET_MS = 100;

export interface PdfText {
  /** Text of each parsed page, in order. */
  pages: string[];
  /** Pages in the document; more than `pages.length` when `maxPages` cut it short. */
  numPages: number;
  title?: string;
}

export interface PdfLimits {
  maxPages?: number;
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
  try {
    const numPages = pdf.numPages;
    const toParse = Math.min(numPages, limits.maxPages ?? numPages);
    const outOfTime = () => insufficientTime(toParse, limits.deadline);
    if (toParse * PDF_PAGE_BUDGET_MS > limits.deadline - Date.now()) throw outOfTime();
    const pages: string[] = [];
    for (let n = 1; n <= toParse; n++) {
      if (limits.signal.aborted || Date.now() >= limits.deadline) throw outOfTime();
      const page = await pdf.getPage(n);
      pages.push(pageText(await page.getTextContent()));
      page.cleanup();
    }
    return { pages, numPages, title: await documentTitle(pdf) };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

type TextContent = Awaited<ReturnType<Awaited<ReturnType<PDFDocumentProxy['getPage']>>['getTextContent']>>;

/** Text runs in reading order; pdf.js flags the run that ends a line. */
function pageText(content: TextContent): string {
  let text = '';
  for (const item of content.items) {
    if (!('str' in item)) continue;
    text += item.str + (item.hasEOL ? '\n' : '');
  }
  return text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}

async function documentTitle(pdf: PDFDocumentProxy): Promise<string | undefined> {
  const { info } = await pdf.getMetadata().catch(() => ({ info: undefined }));
  const title = (info as { Title?: unknown } | undefined)?.Title;
  return typeof title === 'string' && title.trim() ? title.trim() : undefined;
}

function insufficientTime(pages: number, deadline: number): NonRetryablePageError {
  // The suggestion leaves the fetch a few seconds on top of the pages' budget.
  const suggestedMs = Math.ceil((pages * PDF_PAGE_BUDGET_MS) / 1000) * 1000 + 5_000;
  return new NonRetryablePageError(
    'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
    `Insufficient time to process PDF of ${pages} pages. Please increase the timeout parameter in your scrape ` +
      `request to at least ${suggestedMs}ms, or parse fewer pages with parsers: [{ type: "pdf", maxPages }].`,
    { details: { numPages: pages, remainingMs: Math.max(0, deadline - Date.now()) } },
  );
}
