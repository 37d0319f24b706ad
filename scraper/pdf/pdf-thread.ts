/**
 * The PDF's side of its own thread (../files/isolated.ts, never the worker's main thread): pdf.js
 * opens the file once, and each page's text layer is read and laid out (layout.ts) here, and a page
 * that needs OCR is drawn here too. Only plain results (page count, title, a page's blocks, a PNG)
 * leave the thread. A page whose content stream pdf.js spends minutes on, for its text or its
 * drawing, holds this thread only, which is terminated at the request's deadline.
 */
import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import { NonRetryablePageError } from '../../lib/errors.js';
import { denoiseForOcr, MAX_PIXELS } from '../files/denoise.js';
import { textLayerLayout, type PageLayout } from './layout.js';

/** Scale of a rendered page: 144 dpi for a 72-dpi page box, where Tesseract reads body text well. */
const OCR_RENDER_SCALE = 2;

export interface PdfInfo {
  numPages: number;
  title?: string;
}

/** The thread's one document (a thread serves one file). */
let opened: PDFDocumentProxy | undefined;

export async function openPdf(data: Uint8Array): Promise<PdfInfo> {
  // pdf.js takes ownership of (detaches) the array it is given: the thread's own copy. Its warnings
  // stay out of the worker log. (pdf.js 5 no longer generates font code with eval, so there is no
  // `isEvalSupported` to turn off: the bundle unpdf ships has no `new Function`.)
  opened = await getDocumentProxy(data, { verbosity: 0 }).catch((err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    throw new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', `The PDF could not be read: ${reason}`, {
      details: { contentType: 'application/pdf' },
      cause: err,
    });
  });
  return { numPages: opened.numPages, ...(await documentTitle(opened)) };
}

/** A page's text layer as blocks (layout.ts), with the page's size. */
export async function pageText(pageNumber: number): Promise<PageLayout> {
  const page = await openedPdf().getPage(pageNumber);
  try {
    return textLayerLayout((await page.getTextContent()).items, page.getViewport({ scale: 1 }));
  } finally {
    page.cleanup();
  }
}

/** A page drawn as a PNG cleaned for OCR. */
export async function renderPageForOcr(pageNumber: number): Promise<Uint8Array> {
  const pdf = openedPdf();
  const page = await pdf.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  page.cleanup();
  // A page box of a square metre would be a canvas of gigabytes (outside the thread's heap limit):
  // large pages are drawn smaller, no larger than the denoise filter takes.
  const scale = Math.min(OCR_RENDER_SCALE, Math.sqrt(MAX_PIXELS / Math.max(1, width * height)));
  const image = await renderPageAsImage(pdf, pageNumber, { canvasImport: () => import('@napi-rs/canvas'), scale });
  return new Uint8Array(await denoiseForOcr(Buffer.from(image)));
}

function openedPdf(): PDFDocumentProxy {
  if (!opened) throw new Error('No PDF was opened on this thread');
  return opened;
}

async function documentTitle(pdf: PDFDocumentProxy): Promise<{ title?: string }> {
  const { info } = await pdf.getMetadata().catch(() => ({ info: undefined }));
  const title = (info as { Title?: unknown } | undefined)?.Title;
  return typeof title === 'string' && title.trim() ? { title: title.trim() } : {};
}
