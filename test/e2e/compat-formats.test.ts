/**
 * The formats and options of SDK 4.42 that need no model: `attributes`, `rawBase64` and
 * `redactPII`, on the stack without a model (which also answers LLM_NOT_CONFIGURED for the model
 * formats), and bad input in each a 400 naming it.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);
const firecrawl = new Firecrawl({ apiKey, apiUrl });

const CARS = `<html><head><title>Cars</title></head><body><nav><a class="car" data-vehicle-name="Nav Car" href="/nav">Nav</a></nav>
<article><h1>Cars for sale</h1><p>Two cars are for sale this week, both in good order and ready to drive away today.</p>
<div class="car" data-vehicle-name="Alpha" data-price="100"></div><div class="car" data-vehicle-name="Beta" data-price="200"></div></article></body></html>`;

const CONTACT = `<html><head><title>Contact</title><meta name="description" content="Mail sales@shop.example for a quote"></head><body><article>
<h1>Contact us</h1><p>Write to sales@shop.example or call +44 20 7946 0958. Pay by card 4111 1111 1111 1111 or to IBAN DE89 3704 0044 0532 0130 00.</p>
<p>Our office network is 203.0.113.9. <a href="mailto:owner@shop.example">Mail the owner</a>. Order 2024-01-15, 1.234 units.</p>
<div class="who" data-mail="boss@shop.example"></div></article></body></html>`;

/** A brand's page, every token known: colours, fonts, a primary and an outlined button, an input. */
const BRAND = `<!doctype html><html><head><title>Home | Acme Tools</title>
<meta property="og:site_name" content="Acme Tools"><meta property="og:image" content="/og.png">
<style>
body { background: #ffffff; color: #222222; font-family: "Inter", Arial, sans-serif; font-size: 16px; line-height: 24px; }
h1 { font-family: "Playfair Display", Georgia, serif; font-size: 40px; font-weight: 700; line-height: 48px; color: #0b3d91; }
a { color: #0b3d91; }
.btn-primary { background: #ff5a1f; color: #ffffff; border: 0; border-radius: 8px; padding: 8px 16px; }
.btn-ghost { background: transparent; color: #0b3d91; border: 1px solid #0b3d91; border-radius: 8px; padding: 8px 16px; }
input { border: 1px solid #cccccc; border-radius: 4px; }
code { font-family: "JetBrains Mono", monospace; }
</style></head><body>
<header><a href="/" class="site-logo"><svg width="40" height="20" aria-label="Acme logo"><rect width="40" height="20" fill="#ff5a1f"/></svg></a>
<nav><a href="/tools">Tools</a> <a href="/about">About</a></nav></header>
<main><h1>Tools that last</h1><p>Hand tools since 1921. <code>npm i acme</code></p>
<button class="btn-primary">Buy now</button> <button class="btn-ghost">Learn more</button> <input placeholder="Email"></main>
</body></html>`;

/** Pages whose only logo is a fallback: an apple-touch-icon, then og:image. */
const TOUCH_ICON = '<html><head><link rel="apple-touch-icon" href="/touch.png"><meta property="og:image" content="/og.png"></head><body><p>No logo here.</p></body></html>';
const OG_ONLY = '<html><head><meta property="og:image" content="/og.png"></head><body><p>No logo here either.</p></body></html>';

/** A 1x1 PNG: bytes no text format can carry. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/cars') return void res.writeHead(200, { 'content-type': 'text/html' }).end(CARS);
    if (req.url === '/brand') return void res.writeHead(200, { 'content-type': 'text/html' }).end(BRAND);
    if (req.url === '/touch-icon') return void res.writeHead(200, { 'content-type': 'text/html' }).end(TOUCH_ICON);
    if (req.url === '/og-only') return void res.writeHead(200, { 'content-type': 'text/html' }).end(OG_ONLY);
    if (req.url === '/contact') return void res.writeHead(200, { 'content-type': 'text/html' }).end(CONTACT);
    if (req.url === '/data.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"a": "<a href=\\"/x\\">x</a>"}');
    if (req.url === '/pixel.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('attributes', () => {
  it("answers each selector's attribute values in document order, from the whole page (official SDK)", async () => {
    const doc = await firecrawl.scrape(`${origin}/cars`, {
      formats: ['markdown', { type: 'attributes', selectors: [{ selector: '.car', attribute: 'data-vehicle-name' }, { selector: 'article .car', attribute: 'price' }] }],
      maxAge: 0,
    });
    expect(doc.attributes).toEqual([
      { selector: '.car', attribute: 'data-vehicle-name', values: ['Nav Car', 'Alpha', 'Beta'] },
      { selector: 'article .car', attribute: 'price', values: ['100', '200'] },
    ]);
    expect(doc.markdown).toContain('Cars for sale');
    expect(doc.metadata?.creditsUsed).toBe(1);
  });

  it('answers empty values for a response that has no elements (JSON)', async () => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/data.json`, formats: ['markdown', { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }] } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual([{ selector: 'a', attribute: 'href', values: [] }]);
  });

  it.each([
    ['an invalid selector', 'div['],
    ['a selector whose cost grows with the page squared', 'div:has(div:has(p))'],
  ])('refuses %s before anything is fetched, as includeTags are', async (_what, selector) => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/cars`, formats: [{ type: 'attributes', selectors: [{ selector, attribute: 'id' }] }], maxAge: 0 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('formats.0.selectors.0.selector');
  });
});

describe('rawBase64', () => {
  it('answers the bytes as served, of a page or of an image, for one credit', async () => {
    const page = await firecrawl.scrape(`${origin}/cars`, { formats: [{ type: 'rawBase64' } as never], maxAge: 0 });
    expect(Buffer.from((page as { rawBase64: string }).rawBase64, 'base64').toString('utf8')).toBe(CARS);
    expect(page.markdown).toBeUndefined();
    expect(page.metadata).toMatchObject({ title: 'Cars', creditsUsed: 1 });
    const image = await api('/v2/scrape', { body: { url: `${origin}/pixel.png`, formats: ['rawBase64'], maxAge: 0 } });
    expect(image.status).toBe(200);
    expect(Buffer.from(image.body.data.rawBase64, 'base64').equals(PNG)).toBe(true);
    expect(image.body.data.metadata).toMatchObject({ contentType: 'image/png', creditsUsed: 1 });
  });
});

describe('redactPII', () => {
  const SECRETS = ['sales@shop.example', 'owner@shop.example', 'boss@shop.example', '7946 0958', '4111 1111 1111 1111', 'DE89 3704', '203.0.113.9'];

  it('redacts every text output: markdown, html, rawHtml, links, metadata and attributes, for 4 more credits (official SDK)', async () => {
    const doc = await firecrawl.scrape(`${origin}/contact`, {
      formats: ['markdown', 'html', 'rawHtml', 'links', { type: 'attributes', selectors: [{ selector: '.who', attribute: 'mail' }] }],
      redactPII: true,
      maxAge: 0,
    });
    const text = JSON.stringify({ ...doc, warning: undefined });
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
    expect(doc.markdown).toContain('Write to <EMAIL> or call <PHONE>. Pay by card <FINANCIAL> or to IBAN <FINANCIAL>.');
    expect(doc.markdown).toContain('Our office network is <LOCATION>.');
    expect(doc.markdown).toContain('Order 2024-01-15, 1.234 units.');
    expect(doc.html).toContain('&lt;EMAIL&gt;');
    expect(doc.markdown).toContain('(mailto:<EMAIL>)');
    expect(doc.metadata?.description).toBe('Mail <EMAIL> for a quote');
    expect(doc.attributes).toEqual([{ selector: '.who', attribute: 'mail', values: ['<EMAIL>'] }]);
    expect(doc.metadata?.sourceURL).toBe(`${origin}/contact`);
    expect(doc.metadata?.creditsUsed).toBe(5);
    // Names and secrets need a model: the warning says they were not looked for.
    expect(doc.warning).toMatch(/found no PERSON or SECRET spans/);
  });

  it('keeps to the entities asked for, in the style asked for, on every page of a batch', async () => {
    const started = await api('/v2/batch/scrape', {
      body: { urls: [`${origin}/contact`], formats: ['markdown'], redactPII: { entities: ['EMAIL', 'FINANCIAL'], replaceStyle: 'mask', mode: 'fast' } },
    });
    expect(started.status).toBe(200);
    const [doc] = (await waitForJobEnd(api, 'batch/scrape', started.body.id)).data;
    expect(doc.markdown).toContain('Write to ****************** or call +44 20 7946 0958.');
    expect(doc.markdown).not.toContain('4111');
    expect(doc.markdown).toContain('203.0.113.9');
    expect(doc.warning ?? '').not.toMatch(/PERSON/);
  });

  it('does nothing with false, and refuses it beside rawBase64', async () => {
    const off = await api('/v2/scrape', { body: { url: `${origin}/contact`, redactPII: false, maxAge: 0 } });
    expect(off.body.data.markdown).toContain('sales@shop.example');
    expect(off.body.data.metadata.creditsUsed).toBe(1);
    const raw = await api('/v2/scrape', { body: { url: `${origin}/contact`, formats: ['rawBase64'], redactPII: true } });
    expect(raw.status).toBe(400);
    expect(raw.body.details).toEqual({ option: 'redactPII' });
  });
});

describe('formats and options that need a model, on a stack without one', () => {
  it.each([
    ['formats.question', { formats: [{ type: 'question', question: 'What is for sale?' }] }],
    ['formats.highlights', { formats: [{ type: 'highlights', query: 'cars' }] }],
    ['formats.query', { formats: [{ type: 'query', prompt: 'What is for sale?' }] }],
    ['onlyCleanContent', { onlyCleanContent: true }],
  ])('%s is 400 LLM_NOT_CONFIGURED', async (option, extra) => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/cars`, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'LLM_NOT_CONFIGURED', details: { option } });
  });
});

describe('bad input in the new formats and options', () => {
  it.each([
    ['attributes without selectors', [{ type: 'attributes', selectors: [] }]],
    ['an attributes selector without its attribute', [{ type: 'attributes', selectors: [{ selector: '.car' }] }]],
    ['an attributes selector over 1000 characters', [{ type: 'attributes', selectors: [{ selector: 'x'.repeat(1001), attribute: 'id' }] }]],
    ['an empty question', [{ type: 'question', question: '' }]],
    ['question without the question', [{ type: 'question' }]],
    ['highlights over 10,000 characters', [{ type: 'highlights', query: 'x'.repeat(10_001) }]],
    ['query in a mode Firecrawl does not have', [{ type: 'query', prompt: 'x', mode: 'verbatim' }]],
    ['question as a bare name', ['question']],
    ['rawBase64 beside another format', ['markdown', 'rawBase64']],
    ['question and query together', [{ type: 'question', question: 'a' }, { type: 'query', prompt: 'b' }]],
  ])('formats: %s', async (_what, formats) => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/cars`, formats } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('formats');
  });

  it.each([
    ['redactPII', { redactPII: 'yes' }],
    ['redactPII', { redactPII: { mode: 'thorough' } }],
    ['redactPII', { redactPII: { entities: ['NAME'] } }],
    ['redactPII', { redactPII: { replaceStyle: 'blur' } }],
    ['redactPII', { redactPII: { extra: true } }],
    ['onlyCleanContent', { onlyCleanContent: 'please' }],
  ])('%s: %o', async (field, extra) => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/cars`, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });

  it('still names a format Trawl does not have', async () => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/cars`, formats: ['menu'] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"menu"');
  });
});

describe('branding', () => {
  it("reads the page's colours, fonts, typography, components and inline SVG logo in the browser", async () => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/brand`, formats: ['branding'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { branding } = res.body.data;
    expect(res.body.data.warning).toBeUndefined();
    expect(branding).toMatchObject({
      colorScheme: 'light',
      brandName: 'Acme Tools',
      colors: { background: '#FFFFFF', textPrimary: '#222222', link: '#0B3D91', primary: '#FF5A1F' },
      typography: {
        fontFamilies: { primary: 'Inter', heading: 'Playfair Display', code: 'JetBrains Mono' },
        fontSizes: { h1: '40px', body: '16px' },
        lineHeights: { heading: 1.2, body: 1.5 },
        fontWeights: { bold: 700 },
      },
      components: {
        buttonPrimary: { background: '#FF5A1F', textColor: '#FFFFFF', borderRadius: '8px' },
        buttonSecondary: { textColor: '#0B3D91', borderColor: '#0B3D91' },
        input: { borderColor: '#CCCCCC', borderRadius: '4px' },
      },
      spacing: { baseUnit: 8, borderRadius: '8px' },
    });
    expect(branding.fonts.map((f: { family: string }) => f.family)).toEqual(expect.arrayContaining(['Inter', 'Playfair Display', 'JetBrains Mono']));
    expect(branding.logo).toMatch(/^data:image\/svg\+xml;utf8,.*Acme%20logo/);
    expect(res.body.data.markdown).toBeUndefined();
  });

  it.each([
    ['/touch-icon', '/touch.png'],
    ['/og-only', '/og.png'],
  ])('falls back for a page without a marked logo: %s gives %s', async (path, logo) => {
    const res = await api('/v2/scrape', { body: { url: `${origin}${path}`, formats: ['markdown', 'branding'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.branding.logo).toBe(`${origin}${logo}`);
    expect(res.body.data.branding.colorScheme).toBe('light');
  });
});
