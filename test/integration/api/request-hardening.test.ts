/**
 * Malformed requests against the real app (api/app.ts), found by outside probing (#19 items 3–6
 * and 12): each must be a 4xx in the envelope, never a 500. Temporal is absent: every request
 * here is refused before a workflow would start.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix } from '../../../api/auth/api-keys.js';
import { insertApiKey } from '../../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { loadConfig } from '../../../lib/config.js';
import { apiClient, type ApiResponse } from '../../helpers/api-client.js';
import { serveApp, type InProcessApp } from '../../helpers/in-process-app.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let app: InProcessApp;
let base: string;
let key: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  testDb = await createTestDb('trawl_api_hardening');
  const team = await findOrCreateTeam(testDb.db, `hardening-${randomUUID()}`);
  key = generateApiKey();
  await insertApiKey(testDb.db, { teamId: team.id, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes: null });
  app = await serveApp({ db: testDb.db, config: loadConfig({ AUTH: 'keys', DATABASE_URL: testDb.url }) });
  base = app.base;
  api = apiClient(base, key);
});

afterAll(async () => {
  await app?.close();
  await testDb.drop();
});

function expectEnvelope(res: ApiResponse, status: number, code?: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: expect.any(String), code: code ?? expect.any(String) });
}

/** A POST with exactly these bytes and headers (fetch would not send a wrong content-encoding otherwise). */
async function rawPost(path: string, body: Buffer | string, headers: Record<string, string>): Promise<ApiResponse> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // shown as text by the assertion
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

const validBody = JSON.stringify({ url: 'https://example.com' });

describe('body-parser errors keep their 4xx status (#19 item 3)', () => {
  it.each(['latin1', 'koi8-r'])('content-type charset=%s is 415 UNSUPPORTED_MEDIA_TYPE', async (charset) => {
    const res = await rawPost('/v2/scrape', validBody, { 'content-type': `application/json; charset=${charset}` });
    expectEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.error).toMatch(/charset/i);
  });

  it.each(['x-unknown', 'compress', 'gzip, gzip'])('content-encoding %s is a 4xx', async (encoding) => {
    const res = await rawPost('/v2/scrape', gzipSync(validBody), { 'content-encoding': encoding });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toMatchObject({ success: false, code: expect.any(String) });
  });

  it.each([
    ['not gzip', Buffer.from(validBody)],
    ['empty', Buffer.alloc(0)],
    ['truncated', gzipSync(validBody).subarray(0, 12)],
  ])('content-encoding gzip with a body that is %s is 400', async (_what, body) => {
    expectEnvelope(await rawPost('/v2/crawl', body, { 'content-encoding': 'gzip' }), 400, 'BAD_REQUEST');
  });

  it('still reads a gzip body', async () => {
    // Refused for its format, which proves the body was decoded and parsed.
    const res = await rawPost('/v2/scrape', gzipSync(JSON.stringify({ url: 'https://e.com', formats: ['nope'] })), {
      'content-encoding': 'gzip',
    });
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toContain('nope');
  });
});

describe('a malformed percent-escape in :id is 400 (#19 item 4)', () => {
  const ids = ['%ff', '%E0%A4%A', '%C0%AE%C0%AE'];
  const paths = ['/v1/crawl/', '/v2/crawl/', '/v1/batch/scrape/', '/v2/batch/scrape/'];
  for (const id of ids) {
    it(`GET and DELETE ${id}`, async () => {
      for (const path of paths) {
        expectEnvelope(await api(`${path}${id}`), 400, 'BAD_REQUEST');
        expectEnvelope(await api(`${path}${id}/errors`), 400, 'BAD_REQUEST');
        expectEnvelope(await api(`${path}${id}`, { method: 'DELETE' }), 400, 'BAD_REQUEST');
      }
      expectEnvelope(await api(`/v2/scrape/${id}`), 400, 'BAD_REQUEST');
    });
  }
});

describe('NUL and unpaired surrogates are refused in any string of any body (#19 item 5)', () => {
  const url = 'https://example.com/';
  it.each<[string, string, Record<string, unknown>, string]>([
    ['url', '/v2/scrape', { url: `${url}\u0000` }, 'url'],
    ['includeTags', '/v2/scrape', { url, includeTags: ['main\u0000'] }, 'includeTags.0'],
    ['includeTags (surrogate)', '/v2/scrape', { url, includeTags: ['main\ud800'] }, 'includeTags.0'],
    ['a header value', '/v2/scrape', { url, headers: { 'x-a': 'b\u0000' } }, 'headers.x-a'],
    ['a header name', '/v2/scrape', { url, headers: { 'x-\u0000': 'b' } }, 'headers.x-\\u0000'],
    ['actions[].text', '/v2/scrape', { url, actions: [{ type: 'write', text: 'a\udc00' }] }, 'actions.0.text'],
    [
      'the changeTracking tag',
      '/v2/scrape',
      { url, formats: ['markdown', { type: 'changeTracking', tag: 't\u0000' }] },
      'formats.1.tag',
    ],
    ['crawl prompt', '/v2/crawl', { url, prompt: 'p\u0000' }, 'prompt'],
    ['includePaths', '/v2/crawl', { url, includePaths: ['/a\u0000'] }, 'includePaths.0'],
    [
      'webhook.metadata',
      '/v2/crawl',
      { url, webhook: { url: 'https://hooks.example.com', metadata: { deep: [{ x: '\u0000' }] } } },
      'webhook.metadata.deep.0.x',
    ],
    ['webhook.headers', '/v1/crawl', { url, webhook: { url: 'https://h.example.com', headers: { a: '\ud800' } } }, 'webhook.headers.a'],
    ['batch urls', '/v2/batch/scrape', { urls: [url, `${url}\u0000`] }, 'urls.1'],
    ['map search', '/v2/map', { url, search: 'q\u0000' }, 'search'],
    ['an unknown key', '/v1/scrape', { url, ['k\u0000']: 1 }, 'k\\u0000'],
  ])('%s', async (_name, path, body, field) => {
    const res = await api(path, { body });
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toContain(field);
    expect(res.body.error).toMatch(/NUL|surrogate/);
  });
});

describe('deep nesting in free-form fields is 400 (#19 item 6)', () => {
  // Built as text: JSON.stringify itself overflows the stack on such an object.
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;

  it('10,000-deep webhook.metadata', async () => {
    const res = await api('/v2/crawl', {
      rawBody: `{"url":"https://example.com","webhook":{"url":"https://h.example.com","metadata":${deep(10_000)}}}`,
    });
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toMatch(/^Bad Request: webhook\.metadata\.a\.a.*nested deeper than/);
  });

  it('10,000-deep json format schema', async () => {
    const res = await api('/v2/scrape', {
      rawBody: `{"url":"https://example.com","formats":[{"type":"json","schema":${deep(10_000)}}]}`,
    });
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toContain('formats.0.schema.a');
  });

  it('accepts a schema nested as deep as real ones', async () => {
    // Passes the body rules and the schema; refused only because this deployment has no LLM.
    const res = await api('/v2/scrape', {
      rawBody: `{"url":"https://example.com","formats":[{"type":"json","schema":${deep(40)}}]}`,
    });
    expectEnvelope(res, 400, 'LLM_NOT_CONFIGURED');
  });
});

describe('unknown formats are named (#19 item 12)', () => {
  it.each<[string, unknown]>([
    ['/v2/scrape', ['markdown', 'menu']],
    ['/v2/scrape', [{ type: 'product' }]],
    ['/v2/batch/scrape', ['menu']],
    ['/v1/scrape', ['menu']],
  ])('%s formats %j', async (path, formats) => {
    const body = path.includes('batch') ? { urls: ['https://example.com'], formats } : { url: 'https://example.com', formats };
    const res = await api(path, { body });
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toMatch(/Trawl does not support the "(menu|product)" format/);
  });

  it('names it inside a crawl scrapeOptions too', async () => {
    const res = await api('/v2/crawl', { body: { url: 'https://example.com', scrapeOptions: { formats: ['menu'] } } });
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toContain('scrapeOptions.formats.0: Trawl does not support the "menu" format');
  });
});

describe('a browser profile without BROWSER_PROFILE_KEY', () => {
  // Refused before a page is fetched and charged; saving it back would fail only after.
  it.each<[string, Record<string, unknown>]>([
    ['/v2/scrape', { url: 'https://example.com', profile: { name: 'shop', saveChanges: true } }],
    ['/v2/batch/scrape', { urls: ['https://example.com'], profile: { name: 'shop' } }],
    ['/v2/crawl', { url: 'https://example.com', scrapeOptions: { profile: { name: 'shop' } } }],
  ])('%s answers 400 UNSUPPORTED_OPTION naming it', async (path, body) => {
    const res = await api(path, { body });
    expectEnvelope(res, 400, 'UNSUPPORTED_OPTION');
    expect(res.body).toMatchObject({ error: expect.stringContaining('BROWSER_PROFILE_KEY'), details: { option: 'profile' } });
  });
});
