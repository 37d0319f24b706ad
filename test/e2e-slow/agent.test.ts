/**
 * Agent runs on the real stack, with the fake model playing scripted multi-step runs: tools,
 * results matching the schema, the credit cap, refusal, cancellation, trace and snapshots, the
 * seed's agent errors, and the official SDK's agent methods. Sub-agents, the extract tool,
 * partial snapshots, webhooks and a SIGKILLed worker are in the second describe.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../db/connect.js';
import { DEFAULT_PLAN } from '../../lib/plans.js';
import { setWebhookSecret } from '../../db/repositories/webhook-secrets.js';
import { apiClient } from '../helpers/api-client.js';
import { closedPort } from '../helpers/closed-port.js';
import type { FakeModelServer } from '../helpers/fake-model-server.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { e2eContext } from '../e2e/context.js';
import { finishedAgentRun, say, startModelTeam, type ModelTeam } from '../e2e/llm-stack.js';

const { databaseUrl, apiUrl: modellessUrl, apiKey: modellessKey } = e2eContext();

const PAGES: Record<string, string> = {
  '/products/': '<h1>Products</h1><a href="/products/widget">Widget</a> <a href="/products/gadget">Gadget</a>',
  '/products/widget': '<h1>Widget</h1><p>The Widget costs 10 euros.</p>',
  '/products/gadget': '<h1>Gadget</h1><p>The Gadget costs 12 euros.</p>',
};
const SCHEMA = { type: 'object', properties: { products: { type: 'array', items: { type: 'string' } } }, required: ['products'] };

/** A site whose every page takes `delayMs`, counting the requests it serves at once. */
async function startCountingServer(delayMs: number) {
  const counts = { inFlight: 0, maxInFlight: 0, paths: [] as string[] };
  const server = http.createServer((req, res) => {
    counts.inFlight += 1;
    counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight);
    counts.paths.push(req.url ?? '');
    setTimeout(() => {
      counts.inFlight -= 1;
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>Page ${req.url}</p></body></html>`);
    }, delayMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(counts, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

let stack: ModelTeam;
let model: FakeModelServer;
let origin: string;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;


const finished = (id: string) => finishedAgentRun(api, id);

interface Event {
  type: string;
  eventId: string;
  producerSequence: number;
  outcome?: string;
  error?: { code: string; retryable: boolean };
  agent: { id: string; role: string; parentId?: string };
  toolName?: string;
  artifact?: { snapshotId: string; change: string };
}

async function traceOf(id: string) {
  // The trace's last event is written as the run ends, a moment after the status flips.
  for (let i = 0; i < 50; i++) {
    const res = await api(`/v2/agent/${id}/trace`);
    const events = res.body.events as Event[];
    if (events.at(-1)?.type === 'run.finished') return { creditsUsed: res.body.creditsUsed as number, events };
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

  it('fails with code internal when the result still does not match the schema after its repair round', async () => {
    model.reset();
    model.script(say({ tool: 'finish', result: { products: 'one' } }), say({ tool: 'finish', result: { products: 2 } }));
    const started = await api('/v2/agent', { body: { prompt: 'bad result', schema: SCHEMA } });
    // Said as it happened: two steps, not "within 12 steps".
    expect(await finished(started.body.id)).toMatchObject({ status: 'failed', creditsUsed: 0, error: expect.stringContaining('again after one repair round (step 2 of') });
    const { events } = await traceOf(started.body.id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'failed', error: { code: 'internal', retryable: false } });
    expect(events.filter((e) => e.type === 'error.occurred').map((e) => e.error)).toEqual([
      expect.objectContaining({ code: 'internal', retryable: true }),
      expect.objectContaining({ code: 'internal', retryable: false }),
    ]);
  });

  it('answers an invalid tool call with what was wrong, and stops a run that repeats it', async () => {
    model.reset();
    model.script(say({ tool: 'search', query: '' }), say({ tool: 'search', query: ' ' }));
    const started = await api('/v2/agent', { body: { prompt: 'find something' } });
    const status = await finished(started.body.id);
    expect(status).toMatchObject({ status: 'failed', creditsUsed: 0, error: expect.stringContaining('repeated an invalid search call') });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('Invalid call, nothing was run: search needs a non-empty query');
  });

  it('bills a failed run past the team’s allowance of unbilled failed work, and refuses model calls past the token quota', async () => {
    // The abuse case: a schema no answer can meet makes every run fail, and failed runs are free.
    const never = { type: 'object', properties: { x: { type: 'string', pattern: '^NEVER$' } }, required: ['x'] };
    const failingRun = async () => {
      model.reset();
      model.script(
        say({ tool: 'scrape', url: `${origin}/products/widget` }),
        say({ tool: 'scrape', url: `${origin}/products/gadget` }),
        say({ tool: 'finish', result: { x: 'no' } }),
        say({ tool: 'finish', result: { x: 'still no' } }),
      );
      const started = await api('/v2/agent', { body: { prompt: 'impossible', schema: never } });
      return finished(started.body.id);
    };
    await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--failed-agent-pages', '3']);
    try {
      expect(await failingRun()).toMatchObject({ status: 'failed', creditsUsed: 0 });
      const billed = await failingRun();
      expect(billed).toMatchObject({ status: 'failed', creditsUsed: 2, error: expect.stringContaining('stay billed') });

      const { data } = (await api('/v2/team/token-usage')).body;
      const used = data.planTokens - data.remainingTokens;
      await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--tokens', String(used)]);
      model.reset();
      const refused = await api('/v2/agent', { body: { prompt: 'anything' } });
      expect(await finished(refused.body.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('model tokens for this month are used up') });
      expect(model.requests).toHaveLength(0);
    } finally {
      await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--failed-agent-pages', '100', '--tokens', '100000000']);
    }
  });

  it('refuses an agent run past the plan’s concurrent runs with 429', async () => {
    await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--agent-concurrency', '1']);
    try {
      model.reset();
      model.script(say({ tool: 'refuse', reason: 'slow' }, 3_000));
      const first = await api('/v2/agent', { body: { prompt: 'slow one' } });
      expect(first.status).toBe(200);
      const second = await api('/v2/agent', { body: { prompt: 'second' } });
      expect(second.status).toBe(429);
      expect(second.body.error).toContain('allows 1');
      await finished(first.body.id);
      model.reset();
      model.script(say({ tool: 'refuse', reason: 'done' }));
      expect((await api('/v2/agent', { body: { prompt: 'after' } })).status).toBe(200);
    } finally {
      await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--agent-concurrency', '10']);
    }
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
    // Cancelled while its first step waits on the model.
    await vi.waitFor(() => expect(model.requests).toHaveLength(1));
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

describe('agent runs: sub-agents, extract, partial results, webhooks, crashes', () => {
  it('hands sub-tasks to sub-agents that work in parallel and answer into the transcript', async () => {
    model.reset();
    model.scriptFor(
      'Task: Compare the prices',
      say({ tool: 'spawn_subagent', task: 'Find the widget price' }),
      say({ tool: 'spawn_subagent', task: 'Find the gadget price' }),
      say({ tool: 'wait_for_subagents' }),
      say({ tool: 'finish', result: { products: ['Widget 10', 'Gadget 12'] } }),
    );
    model.scriptFor('Task: Find the widget price', say({ tool: 'scrape', url: `${origin}/products/widget` }), say({ tool: 'finish', result: { price: 10 } }));
    model.scriptFor('Task: Find the gadget price', say({ tool: 'scrape', url: `${origin}/products/gadget` }), say({ tool: 'finish', result: { price: 12 } }));
    const started = await api('/v2/agent', { body: { prompt: 'Compare the prices', schema: SCHEMA } });
    expect(await finished(started.body.id)).toMatchObject({ status: 'completed', data: { products: ['Widget 10', 'Gadget 12'] }, creditsUsed: 2 });

    // The orchestrator's last decision saw both answers.
    const last = model.requests.filter((r) => r.messages.at(-1)!.content!.includes('Task: Compare the prices')).at(-1)!;
    expect(last.messages.at(-1)!.content).toContain('Helper 1 answered:\n{"price":10}');
    expect(last.messages.at(-1)!.content).toContain('Helper 2 answered:\n{"price":12}');

    const { events } = await traceOf(started.body.id);
    const sub = events.filter((e) => e.agent.role === 'subagent');
    expect(sub.filter((e) => e.type === 'agent.started')).toHaveLength(2);
    expect(sub.filter((e) => e.type === 'agent.finished').map((e) => e.outcome)).toEqual(['succeeded', 'succeeded']);
    expect(sub.every((e) => e.agent.parentId === started.body.id)).toBe(true);
    expect(events[0]!.type).toBe('run.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'succeeded' });
    // Each agent numbers its own events without gaps or repeats.
    for (const agent of new Set(events.map((e) => e.agent.id))) {
      const seqs = events.filter((e) => e.agent.id === agent).map((e) => e.producerSequence);
      expect(seqs).toEqual(seqs.map((_, i) => i));
    }
  });

  it("takes one of the team's concurrency slots per page: at concurrency 1 an orchestrator and its sub-agents never fetch two pages at once", async () => {
    const site = await startCountingServer(300);
    await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--concurrency', '1']);
    try {
      model.reset();
      model.scriptFor(
        'Task: Read three pages',
        say({ tool: 'spawn_subagent', task: 'Read page a' }),
        say({ tool: 'spawn_subagent', task: 'Read page b' }),
        say({ tool: 'scrape', url: `${site.origin}/c` }),
        say({ tool: 'wait_for_subagents' }),
        say({ tool: 'finish', result: { products: ['a', 'b', 'c'] } }),
      );
      model.scriptFor('Task: Read page a', say({ tool: 'scrape', url: `${site.origin}/a` }), say({ tool: 'finish', result: { page: 'a' } }));
      model.scriptFor('Task: Read page b', say({ tool: 'scrape', url: `${site.origin}/b` }), say({ tool: 'finish', result: { page: 'b' } }));
      const started = await api('/v2/agent', { body: { prompt: 'Read three pages', schema: SCHEMA } });
      expect(await finished(started.body.id)).toMatchObject({ status: 'completed', creditsUsed: 3 });
      expect([...site.paths].sort()).toEqual(['/a', '/b', '/c']);
      // Three agents asked for a page at about the same time; the team's one slot served them in turn.
      expect(site.maxInFlight).toBe(1);
    } finally {
      await runAdmin(databaseUrl, ['teams', 'set', 'agent-team', '--concurrency', String(DEFAULT_PLAN.concurrency)]);
      await site.close();
    }
  });

  it('stops sub-agents still working when their parent finishes: their part of the trace ends parent_finished', async () => {
    model.reset();
    model.scriptFor('Task: Quick answer', say({ tool: 'spawn_subagent', task: 'Dig deep' }), say({ tool: 'finish', result: { products: [] } }, 300));
    model.scriptFor('Task: Dig deep', say({ tool: 'scrape', url: `${origin}/products/widget` }, 6_000), say({ tool: 'finish', result: {} }));
    const started = await api('/v2/agent', { body: { prompt: 'Quick answer', schema: SCHEMA } });
    expect(await finished(started.body.id)).toMatchObject({ status: 'completed', data: { products: [] } });
    const { events } = await traceOf(started.body.id);
    const end = events.find((e) => e.type === 'agent.finished')!;
    expect(end).toMatchObject({ agent: { role: 'subagent' }, outcome: 'cancelled', error: { code: 'parent_finished', retryable: false } });
    // The sub-agent's end is written before the run's.
    expect(events.indexOf(end)).toBeLessThan(events.length - 1);
  });

  it('stops the sub-agents of a sub-agent with parent_finished too, two levels down', async () => {
    model.reset();
    model.scriptFor('Task: Top level', say({ tool: 'spawn_subagent', task: 'Level one' }), say({ tool: 'finish', result: { products: [] } }, 1_500));
    model.scriptFor('Task: Level one', say({ tool: 'spawn_subagent', task: 'Level two' }), say({ tool: 'finish', result: {} }, 6_000));
    // At the depth limit: not offered spawn_subagent, and refused when it asks anyway.
    model.scriptFor('Task: Level two', say({ tool: 'spawn_subagent', task: 'Level three' }), say({ tool: 'finish', result: {} }, 6_000));
    const started = await api('/v2/agent', { body: { prompt: 'Top level', schema: SCHEMA } });
    expect(await finished(started.body.id)).toMatchObject({ status: 'completed' });
    const { events } = await traceOf(started.body.id);
    const ends = events.filter((e) => e.type === 'agent.finished');
    expect(ends.map((e) => e.agent.id).sort()).toEqual([`${started.body.id}/1`, `${started.body.id}/1.1`]);
    for (const end of ends) expect(end).toMatchObject({ outcome: 'cancelled', error: { code: 'parent_finished' } });
    const levelTwo = model.requests.filter((r) => r.messages.at(-1)!.content!.includes('Task: Level two'));
    expect(levelTwo[0]!.messages[0]!.content).not.toContain('spawn_subagent');
    expect(levelTwo[1]!.messages.at(-1)!.content).toContain('Refused: no more helpers');
    expect(model.requests.some((r) => r.messages.at(-1)!.content!.includes('Task: Level three'))).toBe(false);
  });

  it('gives a sub-agent a share of maxCredits, so the run never passes its cap', async () => {
    model.reset();
    model.scriptFor(
      'Task: Capped',
      say({ tool: 'spawn_subagent', task: 'Scrape both' }),
      say({ tool: 'wait_for_subagents' }),
      say({ tool: 'scrape', url: `${origin}/products/gadget` }),
      say({ tool: 'finish', result: { products: ['Widget', 'Gadget'] } }),
    );
    model.scriptFor('Task: Scrape both', say({ tool: 'scrape', url: `${origin}/products/widget` }), say({ tool: 'scrape', url: `${origin}/products/gadget` }));
    const started = await api('/v2/agent', { body: { prompt: 'Capped', schema: SCHEMA, maxCredits: 3 } });
    // The sub-agent's share is half of 3: its second scrape would pass it.
    expect(await finished(started.body.id)).toMatchObject({ status: 'completed', creditsUsed: 2 });
    const { events } = await traceOf(started.body.id);
    expect(events.find((e) => e.type === 'agent.finished')).toMatchObject({ outcome: 'credit_limit_reached', error: { code: 'credit_limit_reached' } });
  });

  it('extracts with the model, and snapshots each new partial result', async () => {
    model.reset();
    const partial = { products: ['Widget'] };
    model.scriptFor('Transform the following content', { content: JSON.stringify({ price: 10 }) });
    model.script(
      say({ tool: 'extract', url: `${origin}/products/widget`, prompt: 'the price', partial }),
      say({ tool: 'scrape', url: `${origin}/products/gadget`, partial }),
      say({ tool: 'finish', result: { products: ['Widget', 'Gadget'] } }),
    );
    const started = await api('/v2/agent', { body: { prompt: 'prices', schema: SCHEMA } });
    expect(await finished(started.body.id)).toMatchObject({ status: 'completed', creditsUsed: 6 });
    const afterExtract = model.requests.filter((r) => r.messages.at(-1)!.content!.includes('Task: prices'))[1]!;
    expect(afterExtract.messages.at(-1)!.content).toContain('{"price":10}');

    const { events } = await traceOf(started.body.id);
    const artifacts = events.filter((e) => e.type === 'artifact.updated').map((e) => e.artifact!);
    // An unchanged partial result is not snapshotted twice.
    expect(artifacts.map((a) => a.change)).toEqual(['partial', 'update']);
    const snap = await api(`/v2/agent/${started.body.id}/snapshots/${artifacts[0]!.snapshotId}`);
    expect(JSON.parse(snap.body.snapshot)).toEqual(partial);
  });

  it("lists a run's failed webhook deliveries in its status", async () => {
    model.reset();
    model.script(say({ tool: 'refuse', reason: 'nothing to do' }));
    const run = await api('/v2/agent', { body: { prompt: 'hooks that fail', webhook: `http://127.0.0.1:${await closedPort()}/hook` } });
    expect(run.status).toBe(200);
    let status: { webhookFailures?: { event: string; code: string; attempt: number }[] } = {};
    for (let i = 0; i < 300 && !status.webhookFailures?.length; i++) {
      status = (await api(`/v2/agent/${run.body.id}`)).body;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status.webhookFailures![0]).toMatchObject({ event: 'agent.started', attempt: 1, code: 'WEBHOOK_DELIVERY_FAILED' });
    // Its model call must not outlive the test: it would take the next test's scripted replies.
    expect(await finished(run.body.id)).toMatchObject({ status: 'failed' });
  });

  it('sends signed agent webhooks: started, one action per tool call, completed; and cancelled', async () => {
    const db = createDb(databaseUrl, { maxConnections: 1 });
    await setWebhookSecret(db, { name: 'agent-team' }, 'agent-secret');
    await db.destroy();
    const hooks = await startWebhookReceiver();
    try {
      model.reset();
      model.script(say({ tool: 'scrape', url: `${origin}/products/widget` }), say({ tool: 'finish', result: { products: ['Widget'] } }));
      const run = await api('/v2/agent', { body: { prompt: 'hooks', schema: SCHEMA, webhook: { url: hooks.url, metadata: { k: 'v' } } } });
      await hooks.waitFor('agent.completed');
      const mine = hooks.deliveries.filter((d) => d.body.id === run.body.id);
      expect(mine.map((d) => d.body.type)).toEqual(['agent.started', 'agent.action', 'agent.completed']);
      expect(mine[1]!.body.data[0]).toMatchObject({ agent: 'main', step: 1, tool: 'scrape', parameters: { url: `${origin}/products/widget` }, creditsUsed: 1 });
      for (const d of mine) {
        expect(d.headers['x-firecrawl-signature']).toBe(`sha256=${createHmac('sha256', 'agent-secret').update(d.raw).digest('hex')}`);
        expect(d.body.metadata).toEqual({ k: 'v' });
      }

      model.reset();
      model.script(say({ tool: 'finish', result: {} }, 8_000));
      const slow = await api('/v2/agent', { body: { prompt: 'slow hooks', webhook: { url: hooks.url, events: ['agent.cancelled'] } } });
      await vi.waitFor(() => expect(model.requests).toHaveLength(1));
      await api(`/v2/agent/${slow.body.id}`, { method: 'DELETE' });
      const cancelled = await hooks.waitFor('agent.cancelled');
      expect(cancelled.body).toMatchObject({ id: slow.body.id, success: false });
      expect(hooks.deliveries.filter((d) => d.body.id === slow.body.id).map((d) => d.body.type)).toEqual(['agent.cancelled']);
    } finally {
      await hooks.close();
    }
  });

  it('finishes a run whose worker is SIGKILLed mid-step: no step charged twice, no trace event twice', async () => {
    model.reset();
    model.script(
      say({ tool: 'scrape', url: `${origin}/products/widget` }),
      // The worker dies while this decision is in flight; its retry on the next worker gets the next reply.
      say({ tool: 'map', url: `${origin}/products/` }, 5_000),
      say({ tool: 'map', url: `${origin}/products/` }),
      say({ tool: 'finish', result: { products: ['Widget', 'Gadget'] } }),
    );
    const started = await api('/v2/agent', { body: { prompt: 'crash', schema: SCHEMA } });
    for (let i = 0; i < 100 && model.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(model.requests.length).toBe(2);
    await stack.stack.workers[0]!.kill('SIGKILL');
    await stack.stack.startWorker();
    const done = await finished(started.body.id);
    expect(done).toMatchObject({ status: 'completed', creditsUsed: 2 });
    const { events } = await traceOf(started.body.id);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    expect(events.filter((e) => e.type === 'tool_call.finished').map((e) => e.toolName)).toEqual(['scrape', 'map']);
  }, 120_000);
});
