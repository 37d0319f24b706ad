/**
 * Agent threads (issue #34 §4), through the official SDK: `mode: "chat"` answers a text
 * `message`, `threadId` continues a conversation whose follow-up run sees the earlier turns'
 * prompts and answers (read from what the fake model was sent), and `getAgentThread` lists the
 * turns. One turn at a time per thread; another team's thread is not found.
 */
import type Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import type { FakeModelServer } from '../helpers/fake-model-server.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from '../e2e/context.js';
import { finishedAgentRun, say, startModelTeam, type ModelTeam } from '../e2e/llm-stack.js';

const PAGES: Record<string, string> = {
  '/products/widget': '<h1>Widget</h1><p>The Widget costs 10 euros.</p>',
};

let stack: ModelTeam;
let model: FakeModelServer;
let origin: string;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;

const lastPrompt = () => String(model.requests.at(-1)!.messages.at(-1)!.content);

const finished = (id: string) => finishedAgentRun(api, id);

beforeAll(async () => {
  stack = await startModelTeam('trawl-agent-threads', 'agent-threads-team', PAGES, 'Shop');
  ({ model, origin, api, firecrawl } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

describe('agent threads', () => {
  it('a chat run answers in message; a follow-up sees the earlier turn; getAgentThread lists both turns', async () => {
    model.reset();
    model.script(say({ tool: 'scrape', url: `${origin}/products/widget` }), say({ tool: 'finish', result: 'The Widget costs 10 euros.' }));
    const first = await firecrawl.agent({ prompt: 'What does the Widget cost?', mode: 'chat', pollInterval: 1 });
    expect(first).toMatchObject({ status: 'completed', mode: 'chat', message: 'The Widget costs 10 euros.', threadTurn: 1 });
    expect(first.data).toBeUndefined();
    const threadId = first.threadId!;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);

    model.script(say({ tool: 'finish', result: 'About 11.90 dollars.' }));
    const second = await firecrawl.agent({ prompt: 'And in dollars?', mode: 'chat', threadId, pollInterval: 1 });
    expect(second).toMatchObject({ status: 'completed', message: 'About 11.90 dollars.', threadId, threadTurn: 2 });
    // The follow-up's decision was made knowing the first turn's question and answer.
    expect(lastPrompt()).toContain('Turn 1 asked: What does the Widget cost?\nAnswer: "The Widget costs 10 euros."');
    expect(lastPrompt()).toContain('Task: And in dollars?');

    // A follow-up that omits mode keeps the thread's, so a schema needs mode extract stated.
    const schema = { type: 'object', properties: { euros: { type: 'number' } } };
    expect(await api('/v2/agent', { body: { prompt: 'As JSON', threadId, schema } })).toMatchObject({ status: 400, body: { error: expect.stringContaining('schema') } });
    model.script(say({ tool: 'finish', result: { euros: 10 } }));
    const third = await firecrawl.agent({ prompt: 'As JSON', threadId, schema, mode: 'extract', pollInterval: 1 });
    expect(third).toMatchObject({ status: 'completed', mode: 'extract', data: { euros: 10 }, threadTurn: 3 });
    expect(lastPrompt()).toContain('Turn 2 asked: And in dollars?\nAnswer: "About 11.90 dollars."');

    const thread = await firecrawl.getAgentThread(threadId, { includeData: true });
    expect(thread).toMatchObject({ success: true, thread: { id: threadId, status: 'idle' } });
    expect(thread.thread!.runs.map((r) => [r.turn, r.mode, r.status, r.prompt, r.message, r.data])).toEqual([
      [1, 'chat', 'succeeded', 'What does the Widget cost?', 'The Widget costs 10 euros.', undefined],
      [2, 'chat', 'succeeded', 'And in dollars?', 'About 11.90 dollars.', undefined],
      [3, 'extract', 'succeeded', 'As JSON', null, { euros: 10 }],
    ]);
    expect(thread.thread!.runs[0]!.creditsUsed).toBe(1);
    const withoutData = await firecrawl.getAgentThread(threadId);
    expect(withoutData.thread!.runs[2]!.data).toBeUndefined();
  });

  it('takes one turn at a time, and keeps threads to their team', async () => {
    model.reset();
    model.script(say({ tool: 'finish', result: 'slow answer' }, 3000));
    const started = await api('/v2/agent', { body: { prompt: 'Take your time', mode: 'chat' } });
    expect(started.body).toMatchObject({ success: true, threadTurn: 1 });
    const threadId = started.body.threadId as string;
    const busy = await api('/v2/agent', { body: { prompt: 'Next', mode: 'chat', threadId } });
    expect(busy).toMatchObject({ status: 409, body: { success: false, error: expect.stringContaining('run in progress') } });
    expect((await api(`/v2/agent/threads/${threadId}`)).body.thread).toMatchObject({ status: 'running', runs: [{ turn: 1, status: 'processing' }] });
    await finished(started.body.id);

    const other = apiClient(stack.apiUrl, await createKeyWithCli(e2eContext().databaseUrl, 'agent-threads-other'));
    expect(await other(`/v2/agent/threads/${threadId}`)).toMatchObject({ status: 404, body: { error: 'Thread not found' } });
    expect(await other('/v2/agent', { body: { prompt: 'Hijack', threadId } })).toMatchObject({ status: 404, body: { error: 'Thread not found' } });
    expect((await api('/v2/agent/threads/nope')).status).toBe(400);
  });
});
