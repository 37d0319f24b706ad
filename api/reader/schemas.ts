/**
 * The request headers of Jina Reader's GET /r/<url> and /s/<query> (api/reader/routes.ts), as
 * one schema: validation, defaults and the ScrapeOptions they mean. A bad header is a 400 naming
 * it; the ScrapeOptions it builds are checked again by the scrape schema (selectors run in the
 * worker, so they pass lib/patterns/css.ts like every other selector).
 */
import { z } from 'zod';
import { parseCallerProxy } from '../../lib/caller-proxy.js';

const flag = z
  .enum(['true', 'false', 'all', '1', '0'])
  .transform((v) => v === 'true' || v === 'all' || v === '1')
  .optional();
/** Jina's lists are comma-separated. */
const selectorList = z
  .string()
  .max(4000)
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

export const readerHeadersSchema = z.object({
  'x-return-format': z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.enum(['markdown', 'html', 'screenshot', 'pageshot']))
    .default('markdown')
    .describe('markdown (default), html (the page as served), screenshot or pageshot (a link to the image); text is not offered'),
  'x-target-selector': selectorList.optional().describe('Keep only the elements these CSS selectors match'),
  'x-remove-selector': selectorList.optional().describe('Drop the elements these CSS selectors match'),
  'x-wait-for-selector': z.string().min(1).max(1000).optional().describe('Wait until this CSS selector matches before reading the page'),
  'x-timeout': z.coerce.number().int().min(1).max(300).optional().describe('Seconds the whole read may take'),
  'x-no-cache': flag.describe('Fetch afresh instead of answering from the page cache'),
  'x-retain-images': z.enum(['none', 'all']).optional().describe('none drops images from the content'),
  'x-with-links-summary': flag.describe('Append the page\'s links'),
  'x-with-images-summary': flag.describe('Append the page\'s images'),
  'x-proxy-url': z
    .string()
    .transform((v, ctx) => {
      const parsed = parseCallerProxy(v);
      if ('url' in parsed) return parsed.url;
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    })
    .optional()
    .describe(
      "Your own proxy, http(s)://[user:pass@]host:port, that the page and its subresources are fetched through instead of the operator's pools; its address passes the SSRF guard like a page's",
    ),
});
export type ReaderHeaders = z.output<typeof readerHeadersSchema>;

/** Which header a ScrapeOptions key came from, so a refusal by the scrape schema names the header. */
export const HEADER_OF_OPTION: Record<string, string> = {
  includeTags: 'X-Target-Selector',
  excludeTags: 'X-Remove-Selector',
  actions: 'X-Wait-For-Selector',
  timeout: 'X-Timeout',
};

/** The ScrapeOptions input the headers ask for (parsed by scrapeOptionsSchema afterwards). */
export function scrapeInputOf(h: ReaderHeaders): Record<string, unknown> {
  const screenshot = h['x-return-format'] === 'screenshot' || h['x-return-format'] === 'pageshot';
  const formats: unknown[] = [
    'markdown',
    ...(h['x-return-format'] === 'html' ? ['rawHtml'] : []),
    ...(screenshot ? [{ type: 'screenshot', fullPage: h['x-return-format'] === 'pageshot' }] : []),
    ...(h['x-with-links-summary'] ? ['links'] : []),
    ...(h['x-with-images-summary'] ? ['images'] : []),
  ];
  const exclude = [...(h['x-remove-selector'] ?? []), ...(h['x-retain-images'] === 'none' ? ['img', 'picture', 'svg'] : [])];
  return {
    formats,
    // A target selector is the content: the main-content heuristic must not cut it further.
    ...(h['x-target-selector'] && { includeTags: h['x-target-selector'], onlyMainContent: false }),
    ...(exclude.length > 0 && { excludeTags: exclude }),
    ...(h['x-wait-for-selector'] && { actions: [{ type: 'wait', selector: h['x-wait-for-selector'] }] }),
    ...(h['x-timeout'] !== undefined && { timeout: Math.max(1000, h['x-timeout'] * 1000) }),
    ...(h['x-no-cache'] && { maxAge: 0 }),
  };
}
