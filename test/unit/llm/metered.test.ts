/** The token meter over the real model client and the fake server: answered calls and failed ones both count. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meteredModel } from '../../../llm/metered.js';
import { createModelClient, type TokenUsage } from '../../../llm/model-client.js';
import { startFakeModelServer, type FakeModelServer } from '../../helpers/fake-model-server.js';

let fake: FakeModelServer;
beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake?.close();
});

const SCHEMA = { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] };

describe('meteredModel', () => {
  it('reports each call’s tokens, and those of a call whose answers never matched the schema', async () => {
    const recorded: TokenUsage[] = [];
    const client = meteredModel(createModelClient({ provider: 'openai-compatible', baseUrl: fake.baseUrl, apiKey: 'sk', model: 'fake-model' }), async (u) => {
      recorded.push(u);
    });
    fake.reset();
    await client.generateText({ prompt: 'hello' });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.inputTokens + recorded[0]!.outputTokens).toBe(fake.tokensServed());

    fake.reset();
    fake.script({ content: '{"price": "cheap"}' }, { content: '{"price": "still cheap"}' });
    await expect(client.generateJson({ prompt: 'price?', schema: SCHEMA })).rejects.toMatchObject({ code: 'LLM_OUTPUT_INVALID' });
    expect(recorded).toHaveLength(2);
    // Both the answer and its repair were spent, though the call failed.
    expect(recorded[1]!.inputTokens + recorded[1]!.outputTokens).toBe(fake.tokensServed());
  });
});
