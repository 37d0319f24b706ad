import { describe, expect, it } from 'vitest';
import { scrapeOptionsFromV1, scrapeV1RequestSchema } from '../../../api/schemas/scrape-v1.js';

/** What the /v1/scrape handler does: validate the v1 body, then translate its options. */
function translate(body: Record<string, unknown>) {
  const { url: _url, origin: _o, integration: _i, zeroDataRetention: _z, ...v1 } = scrapeV1RequestSchema.parse({
    url: 'https://example.com',
    ...body,
  });
  return scrapeOptionsFromV1(v1);
}

describe('scrapeOptionsFromV1', () => {
  it('applies the v1 defaults: no cache, TLS verified, PDFs parsed', () => {
    expect(translate({})).toMatchObject({
      formats: [{ type: 'markdown' }],
      maxAge: 0,
      skipTlsVerification: false,
      parsers: [{ type: 'pdf' }],
      onlyMainContent: true,
      timeout: 30_000,
      removeBase64Images: true,
      blockAds: true,
      storeInCache: true,
      proxy: 'basic',
    });
  });

  it('turns string formats into v2 format objects', () => {
    const options = translate({
      formats: ['markdown', 'html', 'rawHtml', 'links', 'screenshot@fullPage'],
    });
    expect(options.formats).toEqual([
      { type: 'markdown' },
      { type: 'html' },
      { type: 'rawHtml' },
      { type: 'links' },
      { type: 'screenshot', fullPage: true },
    ]);
    expect(translate({ formats: ['screenshot'] }).formats).toEqual([{ type: 'screenshot', fullPage: false }]);
  });

  it('moves jsonOptions, extract and changeTrackingOptions into their format objects', () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } } };
    expect(translate({ formats: ['json'], jsonOptions: { prompt: 'title?', schema } }).formats).toEqual([
      { type: 'json', prompt: 'title?', schema, checkPromptInjection: false },
    ]);
    expect(translate({ formats: ['extract'], extract: { systemPrompt: 'be brief' } }).formats).toEqual([
      { type: 'json', systemPrompt: 'be brief', checkPromptInjection: false },
    ]);
    expect(
      translate({ formats: ['markdown', 'changeTracking'], changeTrackingOptions: { modes: ['git-diff'], tag: 'a' } })
        .formats[1],
    ).toEqual({ type: 'changeTracking', modes: ['git-diff'], tag: 'a' });
  });

  it('maps parsePDF to parsers and keeps the options v1 and v2 share', () => {
    const options = translate({
      parsePDF: false,
      maxAge: 5_000,
      skipTlsVerification: true,
      headers: { 'x-a': '1' },
      waitFor: 100,
      location: { country: 'de' },
      actions: [{ type: 'wait', milliseconds: 10 }],
    });
    expect(options).toMatchObject({
      parsers: [],
      maxAge: 5_000,
      skipTlsVerification: true,
      headers: { 'x-a': '1' },
      waitFor: 100,
      location: { country: 'DE' },
      actions: [{ type: 'wait', milliseconds: 10 }],
    });
  });

  it('applies the v2 rules to the translated formats', () => {
    expect(() => translate({ formats: ['screenshot', 'screenshot@fullPage'] })).toThrow(/more than once/);
    expect(() => translate({ formats: ['changeTracking'] })).toThrow(/requires the markdown format/);
  });
});

describe('scrapeV1RequestSchema', () => {
  const parse = (body: Record<string, unknown>) => scrapeV1RequestSchema.safeParse({ url: 'https://example.com', ...body });

  it('refuses unknown keys, v2-only keys and v2-only formats', () => {
    expect(parse({ bogus: 1 }).success).toBe(false);
    expect(parse({ parsers: [] }).success).toBe(false);
    expect(parse({ formats: ['summary'] }).success).toBe(false);
    expect(parse({ formats: [{ type: 'markdown' }] }).success).toBe(false);
  });

  it('refuses an options object without its format', () => {
    const result = parse({ jsonOptions: { prompt: 'x' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('jsonOptions requires the json format');
  });

  it('accepts what the SDK v1 client sends', () => {
    expect(parse({ formats: ['markdown'], parsePDF: true, origin: 'js-sdk@4.42.0' }).success).toBe(true);
  });
});
