/** A convertFile context with the HTML pipeline in this thread, and a page as an upload would be. */
import { convertFile, type FileContext } from '../../../scraper/files/convert.js';
import { transformHtml } from '../../../scraper/html/transform.js';
import type { FetchedPage } from '../../../scraper/types.js';

export function fileContext(overrides: Partial<FileContext> = {}): FileContext {
  return {
    parsers: [{ type: 'pdf' }],
    transform: {
      onlyMainContent: true,
      removeBase64Images: true,
      want: { markdown: true, html: true, rawHtml: false, links: true, images: false },
    },
    html: async (html, url, options) => transformHtml(html, url, options),
    limits: { deadline: Date.now() + 30_000, signal: new AbortController().signal },
    ...overrides,
  };
}

export function filePage(body: Buffer, contentType = ''): FetchedPage {
  return { engine: 'file', url: 'file://local/test/upload', statusCode: 200, headers: {}, contentType, body };
}

/** Why `body` was refused (its code and message); throws when it converted instead. */
export async function conversionFailure(body: Buffer): Promise<{ code: string; message: string }> {
  try {
    await convertFile(filePage(body), fileContext());
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('the file was converted');
}
