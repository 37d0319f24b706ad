/**
 * PDF pages drawn for OCR, on a PDF's own thread (../files/isolated.ts, never the worker's main
 * thread): pdf.js draws with @napi-rs/canvas at 144 dpi, and the image goes through the denoise
 * filter before it leaves the thread. A page that draws a form inside a form a million times takes
 * minutes here, and the thread is terminated at the request's deadline.
 */
import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import { denoiseForOcr, MAX_PIXELS } from '../files/denoise.js';

/** Scale of a rendered page: 144 dpi for a 72-dpi page box, where Tesseract reads body text well. */
const OCR_RENDER_SCALE = 2;

/** The thread's one document (a thread serves one file); a failure to open it fails each page. */
let opened: Promise<PDFDocumentProxy> | undefined;

export function openPdfForRendering(data: Uint8Array): void {
  opened = getDocumentProxy(data, { verbosity: 0 });
  opened.catch(() => undefined);
}

export async function renderPageForOcr(pageNumber: number): Promise<Uint8Array> {
  if (!opened) throw new Error('No PDF was opened on this thread');
  const pdf = await opened;
  const page = await pdf.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  page.cleanup();
  // A page box of a square metre would be a canvas of gigabytes (outside the thread's heap limit):
  // large pages are drawn smaller, no larger than the denoise filter takes.
  const scale = Math.min(OCR_RENDER_SCALE, Math.sqrt(MAX_PIXELS / Math.max(1, width * height)));
  const image = await renderPageAsImage(pdf, pageNumber, { canvasImport: () => import('@napi-rs/canvas'), scale });
  return new Uint8Array(await denoiseForOcr(Buffer.from(image)));
}
