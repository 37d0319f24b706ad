/** The real model client (AI SDK over HTTP) against the fake OpenAI-compatible server. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient, type ModelClient } from '../../../llm/model-client.js';
import { startFakeModelServer, type FakeModelServer } from '../../helpers/fake-model-server.js';
import { failureOf } from '../../helpers/trawl-failure.js';

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, price: { type: 'number' } },
  required: ['title', 'price'],
  additionalProperties: false,
};

let fake: FakeModelServer;
let client: ModelClient;

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  // A fresh client per test: the ladder remembers what a server refused.
  client = createModelClient({ provider: 'openai-compatible', baseUrl: fake.baseUrl, apiKey: 'sk-test', model: 'fake-model' });
});

describe('generateJson', () => {
  it('asks with a json_schema response format and returns the validated object with token usage', async () => {
    const { object, usage } = await client.generateJson({ prompt: '# Blue kettle\nCosts 42', schema: SCHEMA });
    expect(object).toEqual({ title: 'Blue kettle', price: 42 });
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: SCHEMA } });
    expect(fake.requests[0]!.model).toBe('fake-model');
  });

  it('falls back to a forced tool call when the server refuses json_schema, and remembers it', async () => {
    fake.script({ status: 400, message: 'response_format json_schema is not supported' });
    const { object } = await client.generateJson({ prompt: '# Red kettle', schema: SCHEMA });
    expect(object).toEqual({ title: 'Red kettle', price: 42 });
    expect(fake.requests[1]!.tool_choice).toMatchObject({ type: 'function', function: { name: 'respond' } });
    await client.generateJson({ prompt: '# Green kettle', schema: SCHEMA });
    expect(fake.requests[2]!.response_format).toBeUndefined();
    expect(fake.requests[2]!.tools).toHaveLength(1);
  });

  it('puts the schema in the prompt when tools are ignored too, and reads fenced JSON', async () => {
    fake.script(
      { status: 400, message: 'no json_schema' },
      { content: 'I would rather talk.' },
      { content: 'Here you go:\n```json\n{"title": "Kettle", "price": 9,}\n```' },
    );
    const { object } = await client.generateJson({ prompt: 'page', schema: SCHEMA });
    expect(object).toEqual({ title: 'Kettle', price: 9 });
    expect(fake.requests[2]!.messages[0]!.content).toContain('"price"');
  });

  it('repairs an answer that does not match the schema once, with the errors, then gives up with LLM_OUTPUT_INVALID', async () => {
    fake.script({ content: '{"title": "Kettle"}' }, { content: '{"title": "Kettle", "price": 3}' });
    expect((await client.generateJson({ prompt: 'page', schema: SCHEMA })).object).toEqual({ title: 'Kettle', price: 3 });
    expect(fake.requests[1]!.messages.at(-1)!.content).toContain("must have required property 'price'");

    fake.script({ content: '{"title": 1}' }, { content: '{"title": 2}' });
    expect((await failureOf(client.generateJson({ prompt: 'page', schema: SCHEMA }))).code).toBe('LLM_OUTPUT_INVALID');
  });
});

describe('errors and retries', () => {
  it('retries a 429 after the Retry-After the server asked for', async () => {
    fake.script({ status: 429, retryAfterSecs: 1 });
    const started = Date.now();
    const { text } = await client.generateText({ prompt: 'hello world' });
    expect(text).toContain('hello world');
    expect(fake.requests).toHaveLength(2);
    // A lower bound only: the client waited at least what the server asked.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up on a server that keeps failing with LLM_UNAVAILABLE, which activities retry later', async () => {
    const quick = createModelClient({ provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'fake-model' }, { maxRetries: 1 });
    fake.script({ status: 500 }, { status: 503 });
    const err = await failureOf(quick.generateText({ prompt: 'x' }));
    expect(err.code).toBe('LLM_UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(fake.requests).toHaveLength(2);
  });

  it('does not retry a 4xx: a bad key or model name will not fix itself', async () => {
    fake.script({ status: 401, message: 'invalid api key' });
    const err = await failureOf(client.generateText({ prompt: 'x' }));
    expect(err).toMatchObject({ code: 'LLM_AUTH_FAILED', retryable: false });
    expect(err.message).toContain('OPENAI_API_KEY');
    expect(fake.requests).toHaveLength(1);
    fake.script({ status: 404, message: 'no such model' });
    expect(await failureOf(client.generateText({ prompt: 'x' }))).toMatchObject({ code: 'LLM_REQUEST_REJECTED', retryable: false });
  });

  it('answers /health pings', async () => {
    await expect(client.ping()).resolves.toBeUndefined();
    const down = createModelClient({ provider: 'ollama', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    await expect(down.ping()).rejects.toThrow();
  });
});
