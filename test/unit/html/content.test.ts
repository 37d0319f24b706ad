import { describe, expect, it } from 'vitest';
import { transformContent } from '../../../scraper/html/content.js';
import { options } from './helpers.js';

const ALL = { markdown: true, html: true, rawHtml: true, links: true, images: true };

function response(contentType: string, body: string | Buffer, headers: Record<string, string> = {}) {
  return { url: 'https://api.example.com/data', contentType, body: Buffer.from(body), headers };
}

describe('transformContent', () => {
  it('decodes an HTML body with its charset and runs the HTML pipeline', () => {
    const body = Buffer.concat([Buffer.from('<html><body><p>'), Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), Buffer.from('</p></body></html>')]);
    const page = transformContent(
      response('text/html', body, { 'content-type': 'text/html; charset=windows-1251' }),
      options({ onlyMainContent: false }),
    );
    expect(page.markdown).toBe('Привет');
  });

  it('uses an already-decoded html string (browser engine) as is', () => {
    const page = transformContent(
      { url: 'https://x.example/', contentType: 'application/xhtml+xml', html: '<p>Rendered</p>', headers: {} },
      options({ onlyMainContent: false }),
    );
    expect(page.markdown).toBe('Rendered');
  });

  it('pretty-prints JSON in a json fence, with the raw text as html and rawHtml', () => {
    const raw = '{"a":1,"b":[true,null]}';
    const page = transformContent(response('application/json', raw), options({ want: ALL }));
    expect(page.markdown).toBe('```json\n{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}\n```');
    expect(page.html).toBe(raw);
    expect(page.rawHtml).toBe(raw);
    expect(page.links).toEqual([]);
  });

  it('fences JSON that does not parse as it came, and accepts +json types', () => {
    const page = transformContent(response('application/ld+json', '{not json'), options());
    expect(page.markdown).toBe('```json\n{not json\n```');
  });

  it('returns plain text as the markdown', () => {
    const page = transformContent(response('text/plain', 'line 1\nline *2*'), options());
    expect(page.markdown).toBe('line 1\nline *2*');
  });

  it.each(['image/png', 'application/zip', 'application/octet-stream', 'application/pdf'])(
    'refuses %s with SCRAPE_UNSUPPORTED_FILE_ERROR',
    (type) => {
      expect(() => transformContent(response(type, 'x'), options())).toThrow(
        expect.objectContaining({ name: 'NonRetryablePageError', code: 'SCRAPE_UNSUPPORTED_FILE_ERROR', message: expect.stringContaining(type) }),
      );
    },
  );

  it('sniffs a missing content type from the first bytes', () => {
    expect(transformContent(response('', '  <p>Hi <b>there</b></p>'), options({ onlyMainContent: false })).markdown).toBe('Hi **there**');
    expect(transformContent(response('', '[1,2]'), options()).markdown).toBe('```json\n[\n  1,\n  2\n]\n```');
    expect(transformContent(response('', 'just words'), options()).markdown).toBe('just words');
    expect(() => transformContent(response('', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01])), options())).toThrow(
      expect.objectContaining({ code: 'SCRAPE_UNSUPPORTED_FILE_ERROR' }),
    );
  });
});
