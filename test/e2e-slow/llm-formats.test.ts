/**
 * The json and summary formats and the token ledger on the real stack, with the worker's model
 * client talking over HTTP to the fake OpenAI-compatible server (test/e2e/llm-stack.ts). The stack
 * without a model answers LLM_NOT_CONFIGURED (test/e2e/pdf-and-v1.test.ts).
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import type { FakeModelServer } from '../helpers/fake-model-server.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from '../e2e/context.js';
import { startModelStack, type ModelStack } from '../e2e/llm-stack.js';

const { databaseUrl, apiUrl: modellessUrl, apiKey: modellessKey } = e2eContext();
let model: FakeModelServer;
let stack: ModelStack;
let site: FixtureSite;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, rating: { type: 'number' } },
  required: ['title', 'rating'],
};

beforeAll(async () => {
  [stack, site] = await Promise.all([startModelStack('trawl-llm'), startFixtureSite()]);
  model = stack.model;
  const key = await createKeyWithCli(databaseUrl, 'llm-team');
  api = apiClient(stack.stack.apiUrl, key);
  firecrawl = new Firecrawl({ apiKey: key, apiUrl: stack.stack.apiUrl });
}, 300_000);

afterAll(async () => {
  await Promise.all([stack?.stop(), site?.close()]);
});

describe('model formats', () => {
  it('extracts json with a schema and summarizes, through the SDK, charging for each', async () => {
    model.reset();
    const doc = await firecrawl.scrape(`${site.url}/final`, {
      formats: ['markdown', 'summary', { type: 'json', schema: SCHEMA, prompt: 'the title and a rating' }],
      maxAge: 0,
    });
    expect(doc.json).toEqual({ title: expect.any(String), rating: 42 });
    expect(typeof doc.summary).toBe('string');
    expect(doc.summary!.length).toBeGreaterThan(0);
    expect(doc.markdown).toBeDefined();
    // 1 for the page, 4 for json, 4 for the summary.
    expect(doc.metadata?.creditsUsed).toBe(9);
    const jsonCall = model.requests.find((r) => r.response_format?.type === 'json_schema');
    expect(jsonCall?.messages.at(-1)?.content).toContain('the title and a rating');
    expect(jsonCall?.response_format?.json_schema?.schema).toMatchObject({ properties: SCHEMA.properties });
  });

  it('returns only what was asked: json without markdown', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: [{ type: 'json', prompt: 'anything' }], maxAge: 0 } });
    expect(res.status).toBe(200);
    expect(res.body.data.json).toBeDefined();
    expect(res.body.data.markdown).toBeUndefined();
  });

  it('caches a json-only page with the markdown it did not return, which a cache hit gives the model', async () => {
    const body = { url: `${site.url}/final`, formats: [{ type: 'json', prompt: 'from the cached copy' }] };
    expect((await api('/v2/scrape', { body: { ...body, maxAge: 0 } })).status).toBe(200);
    model.reset();
    const hit = await api('/v2/scrape', { body });
    expect(hit.status).toBe(200);
    expect(hit.body.data.metadata.cacheState).toBe('hit');
    expect(hit.body.data.markdown).toBeUndefined();
    expect(JSON.stringify(model.requests)).toContain('You followed the redirects all the way here.');
  });

  it('refuses the page with 403 when the injection check finds an injection, and charges nothing', async () => {
    model.reset();
    model.script({ content: JSON.stringify({ isInjection: true, reason: 'asks the assistant to send data' }) });
    const res = await api('/v2/scrape', {
      body: { url: `${site.url}/final`, formats: [{ type: 'json', prompt: 'x', checkPromptInjection: true }], maxAge: 0 },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'SCRAPE_PROMPT_INJECTION_DETECTED' });
    expect(model.requests[0]!.messages.at(-1)!.content).toMatch(/^<untrusted_page_content_[0-9a-f]{32}>/);
  });

  it('answers 422 for a schema that is not JSON Schema, before any model call', async () => {
    model.reset();
    const res = await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: [{ type: 'json', schema: { type: 'nonsense' } }] } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INVALID_JSON_SCHEMA');
    expect(model.requests).toHaveLength(0);
  });

  it('records every model call\'s tokens in the team token ledger, v2, v1 and historical', async () => {
    const before = await api('/v2/team/token-usage');
    model.reset();
    await firecrawl.scrape(`${site.url}/final`, { formats: ['summary', { type: 'json', prompt: 'the title' }], maxAge: 0 });
    const spent = model.tokensServed();
    expect(spent).toBeGreaterThan(0);
    const after = await api('/v2/team/token-usage');
    expect(before.body.data.remainingTokens - after.body.data.remainingTokens).toBe(spent);
    const v1 = await api('/v1/team/token-usage');
    expect(v1.body.data.remaining_tokens).toBe(after.body.data.remainingTokens);
    const historical = await api('/v2/team/token-usage/historical');
    const used = after.body.data.planTokens - after.body.data.remainingTokens;
    expect(historical.body.periods.at(-1)).toMatchObject({ tokensUsed: used });
    expect(await firecrawl.getTokenUsage()).toMatchObject({ remainingTokens: after.body.data.remainingTokens });
  });

  it('a model that rejects the key fails the scrape with LLM_AUTH_FAILED and charges nothing', async () => {
    model.reset();
    model.script({ status: 401, message: 'invalid api key' });
    const res = await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: [{ type: 'json', prompt: 'x' }], maxAge: 0 } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, code: 'LLM_AUTH_FAILED' });
    expect(model.requests).toHaveLength(1);
  });

  it('a batch keeps going when one page\'s extraction fails, and lists that page in /errors', async () => {
    model.reset();
    model.script({ status: 401, message: 'invalid api key' });
    const started = await api('/v2/batch/scrape', {
      body: { urls: [`${site.url}/final`, `${site.url}/data.json`], formats: [{ type: 'json', prompt: 'the title' }], maxConcurrency: 1 },
    });
    const done = await waitForJobEnd(api, 'batch/scrape', started.body.id);
    expect(done).toMatchObject({ status: 'completed', completed: 1, creditsUsed: 5 });
    expect(done.data[0].json).toBeDefined();
    const errors = await api(`/v2/batch/scrape/${started.body.id}/errors`);
    expect(errors.body.errors).toEqual([expect.objectContaining({ url: `${site.url}/final`, code: 'LLM_AUTH_FAILED' })]);
  });

  it('reports the model in /health without letting it decide the verdict', async () => {
    const health = await api('/health');
    expect(health.body.model).toMatchObject({ configured: true, name: 'fake-model', ok: true });
  });
});

describe('POST /v2/crawl/params-preview', () => {
  it('returns the options the model suggests, checked by the crawl schema, with what it dropped named', async () => {
    model.reset();
    model.script({ content: JSON.stringify({ includePaths: ['^/blog/.*'], sitemap: 'skip', limit: 50, delay: 500 }) });
    const res = await api('/v2/crawl/params-preview', { body: { url: `${site.url}/`, prompt: 'only the blog, 50 pages, no sitemap, slowly' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { url: `${site.url}/`, includePaths: ['^/blog/.*'], sitemap: 'skip', limit: 50 },
      warning: expect.stringContaining('delay'),
    });
    expect(model.requests[0]!.messages.at(-1)!.content).toContain('only the blog');
    model.script({ content: JSON.stringify({ includePaths: ['^/docs/.*'] }) });
    const viaSdk = await firecrawl.crawlParamsPreview(`${site.url}/`, 'only the docs');
    expect(viaSdk).toMatchObject({ url: `${site.url}/`, includePaths: ['^/docs/.*'] });
  });

  it('says so when the model cannot make sense of the prompt', async () => {
    model.reset();
    model.script({ content: 'not json' }, { content: 'still not' }, { content: 'no' }, { content: 'no' });
    const res = await api('/v2/crawl/params-preview', { body: { url: `${site.url}/`, prompt: '???' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Failed to process natural language prompt. Please try rephrasing.');
  });

  it('answers 400 LLM_NOT_CONFIGURED at once on a deployment without a model', async () => {
    const modelless = apiClient(modellessUrl, modellessKey);
    const res = await modelless('/v2/crawl/params-preview', { body: { url: `${site.url}/`, prompt: 'the blog' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('LLM_NOT_CONFIGURED');
  });
});

