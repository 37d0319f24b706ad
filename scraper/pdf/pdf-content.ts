/**
 * A PDF response to the content part of a Document. With the `pdf` parser the text becomes
 * markdown, billed per page parsed; without it (`parsers: []`, v1 `parsePDF: false`) the file comes
 * back base64-encoded in the text formats, billed flat, as Firecrawl's PDF engine does.
 */
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { PageCostInput } from '../../lib/credits.js';
import type { TransformOptions, TransformedPage } from '../types.js';
import { extractPdfText, type PdfLimits } from './extract-text.js';

export interface PdfContent {
  transformed: TransformedPage;
  /** What the page is billed for; see lib/credits.ts. */
  pdf: NonNullable<PageCostInput['pdf']>;
}

export async function transformPdf(
  body: Buffer | undefined,
  parsers: ScrapeOptions['parsers'],
  want: TransformOptions['want'],
  limits: Omit<PdfLimits, 'maxPages'>,
): Promise<PdfContent> {
  if (!body?.length) {
    throw new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', 'The PDF response had no body', {
      details: { contentType: 'application/pdf' },
    });
  }
  const parser = parsers.find((p) => p.type === 'pdf');
  if (!parser) {
    const base64 = body.toString('base64');
    return { transformed: withText(base64, base64, want, {}), pdf: { parsed: false, pages: 0 } };
  }
  const maxPages = 'maxPages' in parser ? parser.maxPages : undefined;
  const text = await extractPdfText(body, { ...limits, maxPages });
  const markdown = text.pages.filter(Boolean).join('\n\n');
  const html = `<html><body>${text.pages.map(pageHtml).join('')}</body></html>`;
  const metadata = { numPages: text.numPages, ...(text.title && { title: text.title }) };
  const transformed = withText(markdown, html, want, metadata);
  // Scanned PDFs have no text layer, and an empty result should not pass for an empty document.
  if (!markdown) transformed.warning = 'The PDF has no extractable text (it may be scanned); OCR is not supported.';
  return { transformed, pdf: { parsed: true, pages: text.pages.length } };
}

function withText(
  markdown: string,
  html: string,
  want: TransformOptions['want'],
  metadata: TransformedPage['metadata'],
): TransformedPage {
  return {
    ...(want.markdown && { markdown }),
    ...(want.html && { html }),
    ...(want.rawHtml && { rawHtml: html }),
    ...(want.links && { links: [] }),
    ...(want.images && { images: [] }),
    metadata,
  };
}

/** One page as a section of paragraphs; blank lines in the text separate paragraphs. */
function pageHtml(text: string): string {
  const paragraphs = text.split(/\n{2,}/).filter(Boolean);
  return `<section>${paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('')}</section>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
