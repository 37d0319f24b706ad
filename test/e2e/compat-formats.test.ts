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

/** A 1x1 PNG: bytes no text format can carry. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/cars') return void res.writeHead(200, { 'content-type': 'text/html' }).end(CARS);
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
    const res = await api('/v2/scrape', { body: { url: `${origin}/cars`, formats: ['branding'] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"branding"');
  });
});
