/**
 * PDFs and POST /v1/scrape end to end: real API, Temporal, worker and Postgres, against PDFs built
 * in the test and served from 127.0.0.1, through plain HTTP and the SDK's v1 client.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { makeLongPdf, makePdf, THREE_PAGE_TEXTS } from '../helpers/pdf-fixtures.js';
import { e2eContext } from './context.js';
import { startFileServer, type PageServer } from '../helpers/page-server.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);

let files: PageServer;
let site: string;
let threePages: Buffer;

const TALL_PAGE = `<!doctype html><html><head><title>Tall</title></head><body>
<h1>Tall page</h1><p>The top of a page taller than any viewport.</p>
<div style="height:4000px;background:linear-gradient(#fff,#036)"></div><p>The bottom.</p></body></html>`;

beforeAll(async () => {
  threePages = await makePdf(THREE_PAGE_TEXTS);
  const routes: Record<string, { type: string; body: Buffer | string }> = {
    '/three.pdf': { type: 'application/pdf', body: threePages },
    // No .pdf and a generic type: only the %PDF- bytes say what it is.
    '/download?id=7': { type: 'application/octet-stream', body: threePages },
    '/big.pdf': { type: 'application/pdf', body: await makeLongPdf(300) },
    '/tall': { type: 'text/html; charset=utf-8', body: TALL_PAGE },
  };
  files = await startFileServer(routes);
  site = files.origin;
});
afterAll(async () => {
  await files?.close();
});

function expectThreePagesParsed(data: { markdown: string; metadata: Record<string, unknown> }) {
  for (const text of THREE_PAGE_TEXTS) expect(data.markdown).toContain(text);
  expect(data.metadata).toMatchObject({ numPages: 3, creditsUsed: 3, statusCode: 200 });
}

describe('PDFs on /v2/scrape', () => {
  it('parses a PDF into markdown by default, billed one credit per page', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site}/three.pdf` } });
    expect(res.status).toBe(200);
    expectThreePagesParsed(res.body.data);
    expect(res.body.data.metadata.contentType).toBe('application/pdf');
  });

  it('recognises a PDF by its bytes, whatever the URL and content type say', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site}/download?id=7`, parsers: ['pdf'] } });
    expect(res.status).toBe(200);
    expectThreePagesParsed(res.body.data);
  });

  it('with parsers [] returns the file base64-encoded in markdown, billed one credit', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site}/three.pdf`, parsers: [] } });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.body.data.markdown, 'base64').equals(threePages)).toBe(true);
    expect(res.body.data.metadata.creditsUsed).toBe(1);
    expect(res.body.data.metadata.numPages).toBeUndefined();
  });

  it('refuses a PDF too large for the timeout with a clear error, not part of it', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site}/big.pdf`, timeout: 5_000 } });
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR' });
    expect(res.body.error).toMatch(/Insufficient time to process PDF of 300 pages/);
  });
});

describe('POST /v1/scrape', () => {
  const v1 = (body: Record<string, unknown>) => api('/v1/scrape', { body });

  it('parses PDFs by default (parsePDF true) and returns base64 with parsePDF false', async () => {
    const parsed = await v1({ url: `${site}/three.pdf`, formats: ['markdown'] });
    expect(parsed.status).toBe(200);
    expect(parsed.body.success).toBe(true);
    expectThreePagesParsed(parsed.body.data);

    const raw = await v1({ url: `${site}/three.pdf`, parsePDF: false });
    expect(raw.status).toBe(200);
    expect(Buffer.from(raw.body.data.markdown, 'base64').equals(threePages)).toBe(true);
    expect(raw.body.data.metadata.creditsUsed).toBe(1);
  });

  it('takes a full-page screenshot for screenshot@fullPage', async () => {
    const res = await v1({ url: `${site}/tall`, formats: ['markdown', 'screenshot@fullPage'] });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Tall page');
    const shot = await fetch(res.body.data.screenshot);
    expect(shot.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await shot.arrayBuffer());
    // IHDR: the height is the big-endian integer at byte 20; the page is over 4000 px tall.
    expect(png.readUInt32BE(20)).toBeGreaterThan(4000);
  });

  it('answers 400 for unknown keys, v2-only options and options without their format', async () => {
    for (const body of [{ bogus: true }, { parsers: [] }, { formats: ['summary'] }, { jsonOptions: { prompt: 'x' } }]) {
      const res = await v1({ url: `${site}/tall`, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    }
  });

  it('refuses extract and json with LLM_NOT_CONFIGURED, as v2 does', async () => {
    for (const body of [
      { formats: ['extract'], extract: { prompt: 'The title' } },
      { formats: ['json'], jsonOptions: { prompt: 'The title' } },
    ]) {
      const res = await v1({ url: `${site}/tall`, ...body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'LLM_NOT_CONFIGURED' });
    }
  });

  it('works with the SDK v1 client (firecrawl.v1.scrapeUrl)', async () => {
    const firecrawl = new Firecrawl({ apiKey, apiUrl });
    const page = await firecrawl.v1.scrapeUrl(`${site}/tall`, { formats: ['markdown', 'links'] });
    expect(page.success).toBe(true);
    if (!page.success) return;
    expect(page.markdown).toContain('Tall page');
    expect(page.links).toEqual([]);
    expect(page.metadata?.statusCode).toBe(200);

    const pdf = await firecrawl.v1.scrapeUrl(`${site}/three.pdf`, { parsePDF: true });
    expect(pdf.success && pdf.metadata).toMatchObject({ numPages: 3, creditsUsed: 3 });

    await expect(firecrawl.v1.scrapeUrl(`${site}/tall`, { formats: ['extract'], extract: { prompt: 'x' } })).rejects.toMatchObject({
      statusCode: 400,
    });
  });
});
