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
  links: boolean;
  images: boolean;
  summary: boolean;
  screenshot?: FormatOf<'screenshot'>;
  json?: FormatOf<'json'>;
  changeTracking?: FormatOf<'changeTracking'>;
}

export function resolveOutputs(formats: readonly Format[]): PageOutputs {
  const outputs: PageOutputs = {
    markdown: false,
    html: false,
    rawHtml: false,
    links: false,
    images: false,
    summary: false,
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
      default:
        outputs[format.type] = true;
    }
  }
  return outputs;
}
