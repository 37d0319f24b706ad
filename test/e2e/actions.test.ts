/**
 * Actions end to end: POST /v2/scrape with `actions` through the real API, Temporal and a worker
 * with Chromium, against fixture pages on 127.0.0.1; screenshots and PDFs come back as URLs the
 * service serves itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/connect.js';
import { apiClient } from '../helpers/api-client.js';
import { ITEMS_PER_BATCH, startActionsSite, type ActionsSite } from '../helpers/actions-site.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey, databaseUrl } = e2eContext();
const api = apiClient(apiUrl, apiKey);
const MEDIA_URL = new RegExp(`^${apiUrl}/v2/media/[A-Za-z0-9_-]{43}\\.(png|jpg|pdf)$`);
let site: ActionsSite;
let db: Db;

beforeAll(async () => {
  site = await startActionsSite();
  db = createDb(databaseUrl, { maxConnections: 1 });
});
afterAll(async () => {
  await site.close();
  await db.destroy();
});

function scrape(path: string, actions: unknown[], extra: Record<string, unknown> = {}) {
  return api('/v2/scrape', { body: { url: `${site.url}${path}`, actions, ...extra } });
}

function item(n: number): RegExp {
  return new RegExp(`\\bItem ${n}\\b`);
}

/** Downloads a media URL as anyone could: no API key. */
async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('actions change the captured page', () => {
  it('click: the text a button reveals is in the markdown', async () => {
    const res = await scrape('/reveal', [{ type: 'click', selector: '#reveal' }]);
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('The revealed secret text.');
    expect(res.body.data.actions).toEqual({ screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] });
  });

  it('write and press: typing into the focused field and pressing Enter shows the form echo', async () => {
    const res = await scrape('/form', [
      { type: 'click', selector: '#q' },
      { type: 'write', text: 'hello from trawl' },
      { type: 'press', key: 'Enter' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('You wrote: hello from trawl');
    expect(res.body.data.metadata.url).toBe(`${site.url}/echo?q=hello+from+trawl`);
  });

  it('scroll: scrolling down an infinite page puts more items in the markdown', async () => {
    const still = await scrape('/infinite', [{ type: 'wait', milliseconds: 1 }]);
    expect(still.body.data.markdown).toMatch(item(ITEMS_PER_BATCH));
    expect(still.body.data.markdown).not.toMatch(item(ITEMS_PER_BATCH + 1));
    const res = await scrape('/infinite', [{ type: 'scroll', direction: 'down' }, { type: 'scroll' }]);
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toMatch(item(2 * ITEMS_PER_BATCH));
  });

  it('wait: a selector that appears 500 ms after load is waited for', async () => {
    const res = await scrape('/delayed', [{ type: 'wait', selector: '#late' }]);
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Late arrival paragraph.');
  });

  it('executeJavascript: return values come back with their typeof', async () => {
    const res = await scrape('/plain', [
      { type: 'executeJavascript', script: '6 * 7' },
      { type: 'executeJavascript', script: 'return document.title' },
      { type: 'executeJavascript', script: "({ items: [1, 'two'], ok: true })" },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.actions.javascriptReturns).toEqual([
      { type: 'number', value: 42 },
      { type: 'string', value: 'Plain' },
      { type: 'object', value: { items: [1, 'two'], ok: true } },
    ]);
  });

  it('scrape: captures the URL and HTML at its point in the sequence', async () => {
    const res = await scrape('/reveal', [
      { type: 'scrape' },
      { type: 'click', selector: '#reveal' },
      { type: 'scrape' },
    ]);
    expect(res.status).toBe(200);
    const [before, after] = res.body.data.actions.scrapes;
    expect(before.url).toBe(`${site.url}/reveal`);
    expect(after.url).toBe(`${site.url}/reveal`);
    expect(before.html).not.toContain('<p>The revealed secret text.</p>');
    expect(after.html).toContain('<p>The revealed secret text.</p>');
  });
});

describe('screenshot and pdf actions', () => {
  it('return URLs the service serves without a key: PNG, JPEG and PDF bytes', async () => {
    const res = await scrape('/plain', [
      { type: 'screenshot' },
      { type: 'screenshot', fullPage: true, quality: 60 },
      { type: 'pdf', format: 'A4', landscape: true, scale: 0.8 },
    ]);
    expect(res.status).toBe(200);
    const { screenshots, pdfs } = res.body.data.actions;
    expect(screenshots).toHaveLength(2);
    expect(pdfs).toHaveLength(1);
    for (const url of [...screenshots, ...pdfs]) expect(url).toMatch(MEDIA_URL);

    const png = await download(screenshots[0]);
    expect(png.status).toBe(200);
    expect(png.type).toBe('image/png');
    expect(png.bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const jpeg = await download(screenshots[1]);
    expect(jpeg.type).toBe('image/jpeg');
    expect(jpeg.bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    const pdf = await download(pdfs[0]);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('the same document read back by id links the same files', async () => {
    const res = await scrape('/plain', [{ type: 'screenshot' }]);
    const again = await api(`/v2/scrape/${res.body.data.metadata.scrapeId}`);
    expect(again.body.data.actions.screenshots).toEqual(res.body.data.actions.screenshots);
  });

  it('expired media answer 404', async () => {
    const res = await scrape('/plain', [{ type: 'screenshot' }]);
    const url: string = res.body.data.actions.screenshots[0];
    expect((await download(url)).status).toBe(200);
    const id = url.split('/').at(-1)!.replace(/\.png$/, '');
    // The default retention is 24 hours.
    await db
      .updateTable('media')
      .set({ created_at: new Date(Date.now() - 25 * 3_600_000) } as never)
      .where('id', '=', id)
      .execute();
    expect((await download(url)).status).toBe(404);
  });

  it('a batch scrape stores its screenshots the same way', async () => {
    const started = await api('/v2/batch/scrape', {
      body: { urls: [`${site.url}/plain`], formats: ['markdown', 'screenshot'], actions: [{ type: 'pdf' }] },
    });
    expect(started.status).toBe(200);
    const done = await waitForJobEnd(api, 'batch/scrape', started.body.id as string);
    expect(done.status).toBe('completed');
    const [doc] = done.data;
    expect(doc.screenshot).toMatch(MEDIA_URL);
    expect((await download(doc.screenshot)).bytes.subarray(0, 4).toString('hex')).toBe('89504e47');
    expect((await download(doc.actions.pdfs[0])).bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});

describe('failures and limits', () => {
  it('a click on a missing selector fails with SCRAPE_ACTION_ERROR naming the action', async () => {
    const res = await scrape('/reveal', [
      { type: 'wait', milliseconds: 1 },
      { type: 'scroll' },
      { type: 'click', selector: '#missing' },
    ]);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({
      success: false,
      code: 'SCRAPE_ACTION_ERROR',
      error: 'Action 2 (click) failed: no element matches #missing',
    });
  });

  it('click with all succeeds when nothing matches', async () => {
    const res = await scrape('/reveal', [{ type: 'click', selector: '.nothing-matches', all: true }]);
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Clicked 0 times');
  });

  it('more than 50 actions is a 400', async () => {
    const res = await scrape('/plain', Array.from({ length: 51 }, () => ({ type: 'wait', milliseconds: 1 })));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.error).toContain('actions');
  });

  it('invalid actions are a 400 before anything runs', async () => {
    for (const action of [
      { type: 'wait' },
      { type: 'wait', milliseconds: 0 },
      { type: 'screenshot', quality: 101 },
      { type: 'pdf', format: 'A7' },
      { type: 'click' },
      { type: 'teleport' },
    ]) {
      const res = await scrape('/plain', [action]);
      expect(res.status, JSON.stringify(action)).toBe(400);
    }
  });

  it('without actions the document has no actions field', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site.url}/plain` } });
    expect(res.status).toBe(200);
    expect(res.body.data.actions).toBeUndefined();
  });
});
