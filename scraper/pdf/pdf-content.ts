/**
 * A PDF response to the content part of a Document. With the `pdf` parser the text becomes
 * markdown, billed per page parsed; without it (`parsers: []`, v1 `parsePDF: false`) the file comes
 * back base64-encoded in the text formats, billed flat, as Firecrawl's PDF engine does.
 */
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { PageCostInput } from '../../lib/credits.js';
import type { TransformOptions, TransformedPage } from '../types.js';
import { escapeHtml } from '../files/html-table.js';
import { extractPdfText, type PdfLimits } from './extract-text.js';
import type { PageLayout } from './layout.js';

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
  const mode = 'mode' in parser ? parser.mode : undefined;
  const blocks = 'blocks' in parser && parser.blocks === true;
  const text = await extractPdfText(body, { ...limits, maxPages, mode, boxes: blocks });
  const numbered = text.pages.map((markdown, i) => ({ pageNumber: i + 1, markdown }));
  const { markdown, offsets } = joinPages(numbered, 'pageMarkers' in parser && parser.pageMarkers === true);
  const html = `<html><body>${text.pages.map(pageHtml).join('')}</body></html>`;
  const metadata = { numPages: text.numPages, ...(text.title && { title: text.title }) };
  const transformed = withText(markdown, html, want, metadata);
  if (('pages' in parser && parser.pages) || ('pageMarkdown' in parser && parser.pageMarkdown)) transformed.pages = numbered;
  if (blocks) transformed.blocks = pageBlocks(text.layouts, offsets);
  // Scanned PDFs have no text layer, and an empty result should not pass for an empty document.
  if (!markdown) {
    transformed.warning =
      mode === 'fast'
        ? 'The PDF has no extractable text (it may be scanned; mode "fast" does not OCR its pages).'
        : 'The PDF has no extractable text, and OCR found none either.';
  }
  if (text.ocrPages) transformed.metadata.ocrPages = text.ocrPages;
  return { transformed, pdf: { parsed: true, pages: text.pages.length } };
}

/**
 * Firecrawl's page markers go between pages only, naming the page that follows; empty pages (a
 * blank or scanned page) leave no empty section behind. `offsets[i]` is where page i + 1's text
 * starts in the markdown (undefined for an empty page).
 */
function joinPages(pages: { pageNumber: number; markdown: string }[], markers: boolean): { markdown: string; offsets: (number | undefined)[] } {
  let markdown = '';
  const offsets = pages.map((p) => {
    if (!p.markdown) return undefined;
    if (markdown) markdown += markers ? `\n\n---\n\n<!-- page ${p.pageNumber} -->\n\n` : '\n\n';
    const at = markdown.length;
    markdown += p.markdown;
    return at;
  });
  return { markdown, offsets };
}

/**
 * Firecrawl's `document.blocks` (its PdfPageBlocks): per page its size and its blocks in reading
 * order, each with the span of the markdown it became. Trawl's blocks are the text layer's
 * paragraphs or Tesseract's (type `text`: there is no layout model, so `label` and the layout
 * confidence are null).
 */
function pageBlocks(layouts: PageLayout[], offsets: (number | undefined)[]): NonNullable<TransformedPage['blocks']> {
  return layouts.map((layout, i) => {
    let at = offsets[i] ?? 0;
    const items = layout.blocks.map((block, order) => {
      const start = at;
      at += block.content.length + 2;
      return {
        id: `p${i + 1}.b${order}`,
        type: 'text',
        label: null,
        bbox: block.bbox,
        content: block.content,
        markdownSpan: [start, start + block.content.length] as [number, number],
        readingOrder: order,
        source: layout.source,
        confidence: { layout: null, ocr: block.ocrConfidence ?? null },
      };
    });
    return { pageNumber: i + 1, width: layout.width, height: layout.height, status: 'ok', items };
  });
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

