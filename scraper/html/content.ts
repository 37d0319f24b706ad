/**
 * Any fetched response to the content part of a Document, by content type: HTML through the HTML
 * pipeline, JSON as a fenced block, plain text as is; anything else is refused.
 */
import { NonRetryablePageError } from '../../lib/errors.js';
import type { FetchedPage, TransformOptions, TransformedPage } from '../types.js';
import { noAttributes } from './attributes.js';
import { decodeBody } from './decode.js';
import { fencedCodeBlock } from './markdown-code.js';
import { transformHtml } from './transform.js';
import type { HtmlTransform } from './transform-pool.js';

export type ContentInput = Pick<FetchedPage, 'url' | 'contentType' | 'body' | 'html' | 'headers'>;

type Kind = 'html' | 'json' | 'text';

export function transformContent(page: ContentInput, options: TransformOptions): TransformedPage {
  const { kind, text } = readContent(page);
  return kind === 'html' ? transformHtml(text, page.url, options) : transformText(kind, text, options);
}

/** transformContent with the HTML conversion handed to `html` (the worker's thread pool). */
export async function transformContentWith(page: ContentInput, options: TransformOptions, html: HtmlTransform): Promise<TransformedPage> {
  const { kind, text } = readContent(page);
  return kind === 'html' ? html(text, page.url, options) : transformText(kind, text, options);
}

function readContent(page: ContentInput): { kind: Kind; text: string } {
  const kind = contentKind(page);
  return { kind, text: page.html ?? (page.body ? decodeBody(page.body, page.headers['content-type']) : '') };
}

function transformText(kind: Exclude<Kind, 'html'>, text: string, options: TransformOptions): TransformedPage {
  const { want } = options;
  const result: TransformedPage = { metadata: {} };
  if (want.markdown) result.markdown = kind === 'json' ? fencedCodeBlock(prettyJson(text), 'json') : text;
  if (want.html) result.html = text;
  if (want.rawHtml) result.rawHtml = text;
  if (want.links) result.links = [];
  if (want.images) result.images = [];
  if (want.attributes) result.attributes = noAttributes(want.attributes);
  return result;
}

function contentKind(page: ContentInput): Kind {
  const type = page.contentType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type.startsWith('text/') || type === 'application/xml' || type.endsWith('+xml')) return 'text';
  if (type === '') return sniff(page);
  throw new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', `Unsupported content type: ${type}`, {
    details: { contentType: type },
  });
}

/** No Content-Type: look at the first bytes, and refuse what looks binary rather than return garbage. */
function sniff(page: ContentInput): Kind {
  if (page.html !== undefined) return 'html';
  const head = page.body?.subarray(0, 1024) ?? Buffer.alloc(0);
  if (head.includes(0)) {
    throw new NonRetryablePageError('SCRAPE_UNSUPPORTED_FILE_ERROR', 'Unsupported content: binary data without a content type', {
      details: { contentType: '' },
    });
  }
  const first = head.toString('utf8').replace(/^\ufeff/, '').trimStart()[0];
  if (first === '<') return 'html';
  if (first === '{' || first === '[') return 'json';
  return 'text';
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
