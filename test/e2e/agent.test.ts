/**
 * Agent runs on the real stack, with the fake model playing scripted multi-step runs: tools,
 * results matching the schema, the credit cap, refusal, cancellation, trace and snapshots, the
 * seed's agent errors, and the official SDK's agent methods.
 */
import type Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import type { FakeModelServer } from '../helpers/fake-model-server.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';
import { startModelTeam, type ModelTeam } from './llm-stack.js';

const { databaseUrl, apiUrl: modellessUrl, apiKey: modellessKey } = e2eContext();

const PAGES: Record<string, string> = {
  '/products/': '<h1>Products</h1><a href="/products/widget">Widget</a> <a href="/products/gadget">Gadget</a>',
  '/products/widget': '<h1>Widget</h1><p>The Widget costs 10 euros.</p>',
  '/products/gadget': '<h1>Gadget</h1><p>The Gadget costs 12 euros.</p>',
};
const SCHEMA = { type: 'object', properties: { products: { type: 'array', items: { type: 'string' } } }, required: ['products'] };

let stack: ModelTeam;
let model: FakeModelServer;
let origin: string;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;

const say = (action: Record<string, unknown>, delayMs?: number) => ({ content: JSON.stringify(action), ...(delayMs && { delayMs }) });

async function finished(id: string) {
  for (let i = 0; i < 200; i++) {
    const res = await api(`/v2/agent/${id}`);
    if (res.body.status !== 'processing') return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`agent ${id} still running`);
}

async function traceOf(id: string) {
  // The trace's last event is written as the run ends, a moment after the status flips.
  for (let i = 0; i < 50; i++) {
    const res = await api(`/v2/agent/${id}/trace`);
    const events = res.body.events as { type: string; outcome?: string; error?: { code: string; retryable: boolean } }[];
    if (events.at(-1)?.type === 'run.finished') return { ...res.body, events };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`agent ${id}: trace never finished`);
}

beforeAll(async () => {
  stack = await startModelTeam('trawl-agent', 'agent-team', PAGES, 'Shop');
  ({ model, origin, api, firecrawl } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

describe('agent runs', () => {
  it('maps, scrapes and finishes with schema-valid data, traced step by step (SDK waiter, trace, snapshot)', async () => {
    model.reset();
    model.script(
      say({ tool: 'map', url: `${origin}/products/` }),
      say({ tool: 'scrape', url: `${origin}/products/widget` }),
      say({ tool: 'finish', result: { products: 'Widget' } }),
      say({ tool: 'finish', result: { products: ['Widget'] } }),
    );
    const result = await firecrawl.agent({ prompt: 'List the products', urls: [`${origin}/products/`], schema: SCHEMA, pollInterval: 1 });
    expect(result).toMatchObject({ success: true, status: 'completed', data: { products: ['Widget'] }, model: 'spark-2', creditsUsed: 2 });
    // The model saw what the tools found, and why its first finish was sent back (one repair round).
    expect(model.requests[2]!.messages.at(-1)!.content).toContain('The Widget costs 10 euros');
    expect(model.requests[3]!.messages.at(-1)!.content).toContain('was not accepted');

    const list = await firecrawl.listAgents();
    const id = list.agents![0]!.id;
    const trace = await firecrawl.getAgentTrace(id);
    expect(trace.events!.map((e) => e.type)).toEqual([
      'run.started',
      'tool_call.started',
      'tool_call.finished',
      'tool_call.started',
      'tool_call.finished',
      'error.occurred',
      'artifact.updated',
      'run.finished',
    ]);
    expect(trace.creditsUsed).toBe(2);
    const artifact = trace.events!.find((e) => e.type === 'artifact.updated') as unknown as { artifact: { snapshotId: string } };
    const snapshot = await firecrawl.getAgentSnapshot(id, artifact.artifact.snapshotId);
    expect(JSON.parse(snapshot.snapshot!)).toEqual({ products: ['Widget'] });
  });

  it('stops at maxCredits without an HTTP error: failed, unbilled, credit_limit_reached in the trace', async () => {
    model.reset();
    model.script(say({ tool: 'scrape', url: `${origin}/products/widget` }), say({ tool: 'scrape', url: `${origin}/products/gadget` }));
    const before = (await api('/v2/team/credit-usage')).body.data.remainingCredits as number;
    const started = await api('/v2/agent', { body: { prompt: 'prices', maxCredits: 1 } });
    expect(started.status).toBe(200);
    const status = await finished(started.body.id);
    expect(status).toMatchObject({ status: 'failed', creditsUsed: 0, error: expect.stringContaining('credit limit') });
    expect(status.data).toBeUndefined();
    const trace = await traceOf(started.body.id);
    expect(trace.events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'credit_limit_reached', error: { code: 'credit_limit_reached', retryable: false } });
    expect((await api('/v2/team/credit-usage')).body.data.remainingCredits).toBe(before);
  });

  it('fails a refused task with code refused', async () => {
    model.reset();
    model.script(say({ tool: 'refuse', reason: 'this asks for something harmful' }));
    const started = await api('/v2/agent', { body: { prompt: 'something bad' } });
    expect(await finished(started.body.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('refused') });
    expect((await traceOf(started.body.id)).events.at(-1)).toMatchObject({ outcome: 'refused', error: { code: 'refused' } });
  });

  it('keeps a constrained run to its URLs, telling the model why', async () => {
    model.reset();
    model.script(say({ tool: 'scrape', url: 'http://127.0.0.1:9/elsewhere' }), say({ tool: 'finish', result: { products: ['Widget'] } }));
    const started = await api('/v2/agent', { body: { prompt: 'x', urls: [`${origin}/products/`], strictConstrainToURLs: true, schema: SCHEMA } });
    expect(await finished(started.body.id)).toMatchObject({ status: 'completed', creditsUsed: 0 });
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('outside the URLs this run may visit');
  });

  it('cancels a running run once, then answers 409; a finished run answers 409 too (SDK cancelAgent)', async () => {
    model.reset();
    model.script(say({ tool: 'finish', result: {} }, 8_000));
    const started = await firecrawl.startAgent({ prompt: 'slow' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await firecrawl.cancelAgent(started.id!)).toBe(true);
    const again = await api(`/v2/agent/${started.id}`, { method: 'DELETE' });
    expect(again).toMatchObject({ status: 409, body: { success: false, error: 'Agent is already cancelled' } });
    expect(await firecrawl.getAgentStatus(started.id!)).toMatchObject({ status: 'failed', error: expect.stringContaining('cancelled') });
    expect((await traceOf(started.id!)).events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'cancelled', error: { code: 'cancelled' } });

    const done = (await firecrawl.listAgents()).agents!.find((a) => a.status === 'completed')!;
    expect(await api(`/v2/agent/${done.id}`, { method: 'DELETE' })).toMatchObject({ status: 409, body: { error: 'Agent already finished' } });
  });

  it('answers the seed’s agent errors', async () => {
    const other = apiClient(stack.apiUrl, await createKeyWithCli(databaseUrl, 'agent-other-team'));
    const mine = (await firecrawl.listAgents()).agents![0]!.id;
    expect(await api('/v2/agent/not-a-uuid')).toMatchObject({ status: 400, body: { error: 'Invalid job ID format. Job ID must be a valid UUID.' } });
    expect(await other(`/v2/agent/${mine}`)).toMatchObject({ status: 404, body: { error: 'Agent job not found' } });
    expect(await api(`/v2/agent/${mine}/snapshots/bad%20id`)).toMatchObject({ status: 400, body: { error: 'Invalid snapshot ID' } });
    expect(await api(`/v2/agent/${mine}/snapshots/nope`)).toMatchObject({ status: 404, body: { error: 'Snapshot not found' } });
    expect((await api('/v2/agent', { body: { prompt: 'x', model: 'gpt-9' } })).status).toBe(400);

    model.reset();
    model.script(say({ tool: 'finish' }));
    const extract = await api('/v2/extract', { body: { urls: [`${origin}/products/widget`], prompt: 'x' } });
    expect(await api(`/v2/agent/${extract.body.id}/trace`)).toMatchObject({ status: 400, body: { error: 'Trace is only available for Spark 2 extracts' } });
    expect(await api(`/v2/agent/${extract.body.id}/snapshots/s1`)).toMatchObject({ status: 400, body: { error: 'Snapshots are only available for Spark 2 extracts' } });

    const zdrKey = await createKeyWithCli(databaseUrl, 'agent-zdr-team');
    await runAdmin(databaseUrl, ['teams', 'set', 'agent-zdr-team', '--zdr', 'true']);
    const zdr = await apiClient(stack.apiUrl, zdrKey)('/v2/agent', { body: { prompt: 'x' } });
    expect(zdr).toMatchObject({ status: 400, body: { error: 'Your team has zero data retention enabled. This is not supported on extract.' } });
    const modelless = await apiClient(modellessUrl, modellessKey)('/v2/agent', { body: { prompt: 'x' } });
    expect(modelless.body.code).toBe('LLM_NOT_CONFIGURED');
  });
});
