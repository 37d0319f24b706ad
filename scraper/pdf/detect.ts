/**
 * Whether a response is a PDF. Decided by what the server says and what the bytes are, never by
 * the URL's extension: `/report` may serve a PDF and `/file.pdf` an HTML error page.
 */
import { hasPdfMagic } from '../files/sniff.js';

const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf']);

export function isPdf(page: { contentType: string; body?: Buffer }): boolean {
  if (PDF_TYPES.has(page.contentType.toLowerCase())) return true;
  return page.body !== undefined && hasPdfMagic(page.body);
}
