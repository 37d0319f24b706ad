/**
 * A file's bytes to the content part of a Document, by the kind its bytes say it is (sniff.ts): one
 * parser module per kind. Used by every scrape whose response is not HTML, and by POST /v2/parse for
 * uploads. Office files become HTML and go through the same HTML pipeline as web pages, so their
 * markdown, links and images follow the same rules. HTML, JSON and plain text are left to
 * ../html/content.ts, as before.
 */
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { decodeBody } from '../html/decode.js';
import type { HtmlTransform } from '../html/transform-pool.js';
import type { PdfLimits } from '../pdf/extract-text.js';
import { transformPdf, type PdfContent } from '../pdf/pdf-content.js';
import type { FetchedPage, TransformOptions, TransformedPage } from '../types.js';
import { escapeHtml } from './html-table.js';
import { denoiseIsolated, fileToHtmlIsolated } from './isolated.js';
import { recognizeImage } from './ocr.js';
import { sniffFile, type FileKind } from './sniff.js';

export interface FileContent {
  transformed: TransformedPage;
  /** Set for PDFs: what the page is billed for (lib/credits.ts). */
  pdf?: PdfContent['pdf'];
}

export interface FileContext {
  parsers: ScrapeOptions['parsers'];
  transform: TransformOptions;
  html: HtmlTransform;
  limits: Omit<PdfLimits, 'maxPages'>;
  /** An upload's name, the only hint a text file without a declared type has. */
  filename?: string;
}

/** The media type a kind is served as: uploads have no trustworthy Content-Type of their own. */
export const KIND_TYPES: Record<FileKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  rtf: 'application/rtf',
  // Replaced by the image's own type (sniff.ts imageType) where the bytes are at hand.
  image: 'image/*',
  html: 'text/html',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  markdown: 'text/markdown',
  text: 'text/plain',
};

/** undefined: HTML, JSON or plain text, which ../html/content.ts converts. */
export async function convertFile(page: FetchedPage, ctx: FileContext): Promise<FileContent | undefined> {
  // A rendered page (browser engine) is HTML whatever the response was.
  if (!page.body || page.html !== undefined) return undefined;
  const kind = sniffFile(page.body, { contentType: page.contentType, filename: ctx.filename });
  const asHtml = async (html: string, truncated = false): Promise<FileContent> => {
    // An Office file has no navigation or boilerplate: every part of it is content.
    const transformed = await ctx.html(html, page.url, { ...ctx.transform, onlyMainContent: false });
    if (truncated) transformed.warning = 'The table was cut short: the file has more cells than Trawl converts.';
    return { transformed };
  };
  switch (kind) {
    case 'pdf':
      return transformPdf(page.body, ctx.parsers, ctx.transform.want, ctx.limits);
    case 'docx':
    case 'xlsx':
    case 'pptx':
    case 'odt':
    case 'ods':
    case 'odp':
    case 'epub':
    case 'rtf':
    case 'csv':
    case 'tsv': {
      const { html, truncated } = await fileToHtmlIsolated(kind, page.body, page.headers['content-type'], ctx.limits);
      return asHtml(html, truncated);
    }
    case 'image':
      // Firecrawl OCRs images only with the `image` parser; without it they stay unsupported files.
      if (!ctx.parsers.some((p) => p.type === 'image')) throw unsupported(page.contentType || 'image');
      return { transformed: imageText(await recognizeImage(await denoiseIsolated(page.body, ctx.limits), ctx.limits), ctx.transform) };
    case 'markdown':
      return { transformed: markdownFile(decodeBody(page.body, page.headers['content-type']), ctx.transform) };
    case undefined:
      // Binary without a parser; a server that called it text or HTML is wrong, and content.ts refuses it.
      if (page.contentType && !page.contentType.startsWith('text/')) throw unsupported(page.contentType);
      return undefined;
    default:
      return undefined;
  }
}

/** An image's text, one paragraph per block Tesseract found. */
function imageText(text: string, { want }: TransformOptions): TransformedPage {
  const paragraphs = text.split(/\n{2,}/).filter(Boolean);
  const html = `<html><body>${paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('')}</body></html>`;
  return {
    ...(want.markdown && { markdown: text }),
    ...(want.html && { html }),
    ...(want.rawHtml && { rawHtml: html }),
    ...(want.links && { links: [] }),
    ...(want.images && { images: [] }),
    metadata: {},
    ...(!text && { warning: 'OCR found no text in the image.' }),
  };
}

/** Markdown is the answer already; its HTML is the text, as for plain text. */
function markdownFile(text: string, { want }: TransformOptions): TransformedPage {
  return {
    ...(want.markdown && { markdown: text }),
    ...(want.html && { html: text }),
    ...(want.rawHtml && { rawHtml: text }),
    ...(want.links && { links: [] }),
    ...(want.images && { images: [] }),
    metadata: {},
  };
}

export function unsupported(contentType: string): NonRetryablePageError {
  return new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', `Unsupported file type: ${contentType || 'unknown'}`, {
    details: { contentType },
  });
}
