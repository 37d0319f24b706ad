/**
 * Every action type through the browser engine against real Chromium and fixture pages: each
 * test checks the action's effect on the captured page, not just that it ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionSchema, type Action } from '../../../contracts/scrape-options.js';
import { fetchWithBrowser } from '../../../scraper/engines/browser.js';
import type { BrowserFetchRequest, FetchedPage } from '../../../scraper/types.js';
import { createBrowserPool, type BrowserPool } from '../../../browser/browser-pool.js';
import { ITEMS_PER_BATCH, startActionsSite, type ActionsSite } from '../../helpers/actions-site.js';
import { failureOf } from '../../helpers/trawl-failure.js';

let site: ActionsSite;
let pool: BrowserPool;

beforeAll(async () => {
  site = await startActionsSite();
  pool = createBrowserPool({ maxConcurrentPages: 2 });
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
});

/** Actions as a client sends them, defaults filled in by the real schema. */
function render(path: string, actions: unknown[], overrides: Partial<BrowserFetchRequest> = {}): Promise<FetchedPage> {
  return fetchWithBrowser(pool, {
    url: `${site.url}${path}`,
    network: { allowPrivateNetwork: true, skipTlsVerification: false },
    signal: new AbortController().signal,
    deadline: Date.now() + 20_000,
    waitForMs: 0,
    blockAds: false,
    actions: actions.map((a) => actionSchema.parse(a) as Action),
    ...overrides,
  });
}

function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('click', () => {
  it('clicks a button, and what it reveals is in the captured page', async () => {
    const before = await render('/reveal', [{ type: 'wait', milliseconds: 1 }]);
    expect(before.html).not.toContain('<p>The revealed secret text.</p>');
    const page = await render('/reveal', [{ type: 'click', selector: '#reveal' }]);
    expect(page.html).toContain('<p>The revealed secret text.</p>');
  });

  it('with all, clicks every visible match once', async () => {
    const page = await render('/reveal', [{ type: 'click', selector: '.count', all: true }]);
    expect(page.html).toContain('Clicked 3 times');
  });

  it('with all, succeeds when nothing matches', async () => {
    const page = await render('/reveal', [{ type: 'click', selector: '.nothing-here', all: true }]);
    expect(page.html).toContain('Clicked 0 times');
  });

  it('without all, fails with SCRAPE_ACTION_ERROR naming the index when nothing matches', async () => {
    const err = await failureOf(
      render('/reveal', [
        { type: 'wait', milliseconds: 1 },
        { type: 'click', selector: '#missing' },
        { type: 'click', selector: '#reveal' },
      ]),
    );
    expect(err.code).toBe('SCRAPE_ACTION_ERROR');
    expect(err.message).toBe('Action 1 (click) failed: no element matches #missing');
    expect(err.details).toEqual({ index: 1, type: 'click' });
    expect(err.retryable).toBe(false);
  });

  it('fails, within its cap and not at the deadline, when the only match cannot be clicked', async () => {
    // The deadline is out of the test's reach, so only the click's own cap can end it in time.
    const err = await failureOf(render('/reveal', [{ type: 'click', selector: '#invisible' }], { deadline: Date.now() + 600_000 }));
    expect(err.code).toBe('SCRAPE_ACTION_ERROR');
    expect(err.message).toBe(
      'Action 0 (click) failed: no element matching #invisible became clickable (hidden, disabled or covered)',
    );
  });
});

describe('write and press', () => {
  it('types into the field a click focused, and Enter submits the form', async () => {
    const page = await render('/form', [
      { type: 'click', selector: '#q' },
      { type: 'write', text: 'hello <trawl>' },
      { type: 'press', key: 'Enter' },
    ]);
    expect(page.url).toBe(`${site.url}/echo?q=hello+%3Ctrawl%3E`);
    expect(page.statusCode).toBe(200);
    expect(page.html).toContain('You wrote: hello &lt;trawl&gt;');
  });

  it('reports a key Chromium does not know as an action error', async () => {
    const err = await failureOf(render('/form', [{ type: 'press', key: 'NoSuchKey' }]));
    expect(err.code).toBe('SCRAPE_ACTION_ERROR');
    expect(err.message).toMatch(/^Action 0 \(press\) failed: Unknown key: "NoSuchKey"/);
  });
});

describe('scroll', () => {
  it('scrolling down an infinite page loads more items', async () => {
    const still = await render('/infinite', [{ type: 'wait', milliseconds: 1 }]);
    expect(still.html).toContain(`Item ${ITEMS_PER_BATCH}<`);
    expect(still.html).not.toContain(`Item ${ITEMS_PER_BATCH + 1}<`);
    const scrolled = await render('/infinite', [{ type: 'scroll', direction: 'down' }]);
    expect(scrolled.html).toContain(`Item ${2 * ITEMS_PER_BATCH}<`);
  });

  it('scrolls the window up and down by a screenful', async () => {
    const page = await render('/scroll', [
      { type: 'scroll' },
      { type: 'scroll', direction: 'down' },
      { type: 'executeJavascript', script: 'window.scrollY' },
      { type: 'scroll', direction: 'up' },
      { type: 'executeJavascript', script: 'window.scrollY' },
    ]);
    expect(page.actions?.javascriptReturns).toEqual([
      { type: 'number', value: 1600 },
      { type: 'number', value: 800 },
    ]);
  });

  it('scrolls inside the element a selector names', async () => {
    const page = await render('/scroll', [{ type: 'scroll', selector: '#box' }]);
    expect(page.html).toContain('Box at 200');
    const err = await failureOf(render('/scroll', [{ type: 'scroll', selector: '#nope' }]));
    expect(err.message).toBe('Action 0 (scroll) failed: no element matches #nope');
  });
});

describe('wait', () => {
  it('waits for a selector that appears 500 ms after load', async () => {
    const page = await render('/delayed', [{ type: 'wait', selector: '#late' }]);
    expect(page.html).toContain('<p id="late">Late arrival paragraph.</p>');
  });

  it('waits for a selector past the settle, which alone would have missed it', async () => {
    const without = await render('/delayed?ms=2500', [{ type: 'wait', milliseconds: 1 }]);
    expect(without.html).not.toContain('<p id="late">');
    const page = await render('/delayed?ms=2500', [{ type: 'wait', selector: '#late' }]);
    expect(page.html).toContain('<p id="late">Late arrival paragraph.</p>');
  });

  it('waits the milliseconds it is given', async () => {
    const started = Date.now();
    await render('/plain', [{ type: 'wait', milliseconds: 700 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('a selector that never appears makes the scrape time out at its deadline', async () => {
    const err = await failureOf(
      render('/plain', [{ type: 'wait', selector: '#never' }], { deadline: Date.now() + 3_000 }),
    );
    expect(err.code).toBe('SCRAPE_TIMEOUT');
  });
});

describe('executeJavascript', () => {
  it('returns each value with its typeof, from expressions and from bodies with return', async () => {
    const page = await render('/plain', [
      { type: 'executeJavascript', script: '1 + 2' },
      { type: 'executeJavascript', script: 'return document.title' },
      { type: 'executeJavascript', script: "({ list: [1, 'two'], nested: { ok: true } })" },
      { type: 'executeJavascript', script: "const t = await new Promise((r) => setTimeout(() => r('later'), 20));\nreturn t;" },
      { type: 'executeJavascript', script: 'document.body.dataset.touched = "yes"' },
      { type: 'executeJavascript', script: 'console.log("no value")' },
      { type: 'executeJavascript', script: '10n ** 20n' },
    ]);
    expect(page.actions?.javascriptReturns).toEqual([
      { type: 'number', value: 3 },
      { type: 'string', value: 'Plain' },
      { type: 'object', value: { list: [1, 'two'], nested: { ok: true } } },
      { type: 'string', value: 'later' },
      { type: 'string', value: 'yes' },
      { type: 'undefined' },
      { type: 'bigint', value: '100000000000000000000' },
    ]);
    expect(page.html).toContain('data-touched="yes"');
  });

  it('a script that throws fails the scrape with its error', async () => {
    const err = await failureOf(
      render('/plain', [
        { type: 'executeJavascript', script: '1' },
        { type: 'executeJavascript', script: 'throw new Error("script broke")' },
      ]),
    );
    expect(err.code).toBe('SCRAPE_ACTION_ERROR');
    expect(err.message).toMatch(/^Action 1 \(executeJavascript\) failed: Error: script broke/);
  });
});

describe('screenshot, pdf and scrape', () => {
  it('takes PNG and JPEG screenshots; an action viewport applies to that capture only', async () => {
    const page = await render('/plain', [
      { type: 'screenshot' },
      { type: 'screenshot', quality: 40, fullPage: true },
      { type: 'screenshot', viewport: { width: 400, height: 300 } },
      { type: 'screenshot' },
    ]);
    const shots = page.actions?.screenshots ?? [];
    expect(shots.map((s) => s.mimeType)).toEqual(['image/png', 'image/jpeg', 'image/png', 'image/png']);
    expect(shots[0]!.data.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(shots[1]!.data.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(pngSize(shots[0]!.data)).toEqual({ width: 1280, height: 800 });
    expect(pngSize(shots[2]!.data)).toEqual({ width: 400, height: 300 });
    expect(pngSize(shots[3]!.data)).toEqual({ width: 1280, height: 800 });
  });

  it('prints PDFs in the requested format and orientation', async () => {
    const page = await render('/plain', [
      { type: 'pdf' },
      { type: 'pdf', format: 'A6', landscape: true, scale: 0.5 },
    ]);
    const pdfs = page.actions?.pdfs ?? [];
    expect(pdfs.map((p) => p.mimeType)).toEqual(['application/pdf', 'application/pdf']);
    for (const pdf of pdfs) expect(pdf.data.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const mediaBox = (pdf: Buffer) => /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(pdf.toString('latin1'))?.slice(1).map(Number);
    expect(mediaBox(pdfs[0]!.data)).toEqual([612, 792]);
    // A6 is 4.13 × 5.83 in (297 × 420 pt; Chromium rounds to whole points); landscape swaps the sides.
    const [width = 0, height = 0] = mediaBox(pdfs[1]!.data) ?? [];
    expect(Math.abs(width - 420)).toBeLessThan(2);
    expect(Math.abs(height - 297)).toBeLessThan(2);
  });

  it('scrape captures the URL and HTML at its point in the sequence', async () => {
    const page = await render('/form', [
      { type: 'scrape' },
      { type: 'click', selector: '#q' },
      { type: 'write', text: 'midway' },
      { type: 'press', key: 'Enter' },
      { type: 'scrape' },
    ]);
    const scrapes = page.actions?.scrapes ?? [];
    expect(scrapes.map((s) => s.url)).toEqual([`${site.url}/form`, `${site.url}/echo?q=midway`]);
    expect(scrapes[0]!.html).toContain('<form action="/echo"');
    expect(scrapes[0]!.html).not.toContain('You wrote');
    expect(scrapes[1]!.html).toContain('You wrote: midway');
  });

  it('reports no action outputs when no actions were asked for', async () => {
    const page = await render('/plain', []);
    expect(page.actions).toBeUndefined();
  });
});
