/**
 * What a page must produce, resolved once from its `formats`. The scraper, the cache policy and
 * the enrich steps read this typed description instead of searching the format list each time.
 */
import type { Format } from './scrape-options.js';

export type FormatOf<T extends Format['type']> = Extract<Format, { type: T }>;

export interface PageOutputs {
  markdown: boolean;
  html: boolean;
  rawHtml: boolean;
  /** The response's bytes, base64; always alone. */
  rawBase64: boolean;
  links: boolean;
  images: boolean;
  summary: boolean;
  /** Design tokens read in the browser (scraper/engines/branding.ts). */
  branding: boolean;
  screenshot?: FormatOf<'screenshot'>;
  json?: FormatOf<'json'>;
  changeTracking?: FormatOf<'changeTracking'>;
  attributes?: FormatOf<'attributes'>;
  /**
   * The `question` format, or the deprecated `query`: the model's answer in `answer`, in its own
   * words, or (`query` in `directQuote` mode) as the page's own lines it picked.
   */
  answer?: { question: string; quote: boolean };
  /** The `highlights` format: the page's own lines that answer `query`, picked by the model. */
  highlights?: { query: string };
}

/** Formats the model reads the page's markdown for, whether or not markdown is returned. */
export function readsMarkdown(outputs: PageOutputs): boolean {
  return outputs.json !== undefined || outputs.summary || outputs.answer !== undefined || outputs.highlights !== undefined;
}

export function resolveOutputs(formats: readonly Format[]): PageOutputs {
  const outputs: PageOutputs = {
    markdown: false,
    html: false,
    rawHtml: false,
    links: false,
    rawBase64: false,
    images: false,
    summary: false,
    branding: false,
  };
  for (const format of formats) {
    switch (format.type) {
      case 'screenshot':
        outputs.screenshot = format;
        break;
      case 'json':
        outputs.json = format;
        break;
      case 'changeTracking':
        outputs.changeTracking = format;
        break;
      case 'attributes':
        outputs.attributes = format;
        break;
      case 'question':
        outputs.answer = { question: format.question, quote: false };
        break;
      case 'query':
        outputs.answer = { question: format.prompt, quote: format.mode === 'directQuote' };
        break;
      case 'highlights':
        outputs.highlights = { query: format.query };
        break;
      default:
        outputs[format.type] = true;
    }
  }
  return outputs;
}
