/**
 * The agent workflows (workflows/agent.ts, agent-loop.ts) on a real Temporal test server with
 * their activities stubbed: the model's decisions are scripted per agent, tools cost a credit, and
 * the trace, the steps and the run's end are kept in memory. The intricate parts are checked here
 * case by case: the credit cap across sub-agents, a sub-agent outliving its parent, cancel while
 * sub-agents run, the repair round, and a tool call waiting for a team slot.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDecision, AgentStepInput, AgentToolInput, FinishAgentRunInput } from '../../../activities/agent/run.js';
import type { TrawlActivities } from '../../../activities/index.js';
import type { TraceEvent } from '../../../db/repositories/agent-runs.js';
import { agentWorkflow } from '../../../workflows/index.js';
import type { AgentWorkflowInput } from '../../../workflows/agent.js';
import { workflowTestEnvForFile } from '../../helpers/workflow-test-env.js';

const workflowEnv = workflowTestEnvForFile();
let seq = 0;

type Scripted = Exclude<AgentDecision, { tool: 'finish' }> | { tool: 'finish' } | { tool: 'reject'; errors: string } | { tool: 'hang' };

/** The stub activities of one run, with what they were asked. */
class FakeAgentRun {
  /** Decisions per agent key ('' is the orchestrator); an agent past its script finishes. */
  readonly scripts = new Map<string, Scripted[]>();
  readonly steps: AgentStepInput[] = [];
  readonly tools: AgentToolInput[] = [];
  readonly events: TraceEvent[] = [];
  finished?: FinishAgentRunInput;
  /** Tool calls answered `deferred` before the next one runs (no team slot free). */
  deferTools = 0;
  private readonly hanging: Array<() => void> = [];

  script(agentKey: string, ...decisions: Scripted[]): this {
    this.scripts.set(agentKey, decisions);
    return this;
  }

  /** Ends every step left hanging, so the worker can shut down. */
  release(): void {
    for (const resolve of this.hanging.splice(0)) resolve();
  }

  /** Trace events of one agent ('' the orchestrator), by type. */
  eventsOf(agentKey: string, type: string): Array<Record<string, unknown>> {
    const ofAgent = (e: TraceEvent) => {
      const { id } = e.payload.agent as { id: string };
      return agentKey ? id.endsWith(`/${agentKey}`) : !id.includes('/');
    };
    return this.events.filter((e) => e.type === type && ofAgent(e)).map((e) => e.payload);
  }

  activities(): Partial<TrawlActivities> {
    return {
      agentStep: async (input) => {
        this.steps.push(input);
        const next = this.scripts.get(input.agentKey)?.shift() ?? { tool: 'finish' };
        if (next.tool === 'hang') {
          await new Promise<void>((resolve) => this.hanging.push(resolve));
          return { tool: 'refuse', reason: 'released' };
        }
        if (next.tool === 'finish') return { tool: 'finish', accepted: true, snapshotId: `result-${input.agentKey || 'main'}-${input.step}` };
        if (next.tool === 'reject') return { tool: 'finish', accepted: false, errors: next.errors };
        return next;
      },
      agentTool: async (input) => {
        if (this.deferTools > 0) {
          this.deferTools -= 1;
          return { credits: 0, summary: 'waiting for a concurrency slot', deferred: true };
        }
        this.tools.push(input);
        return { credits: 1, summary: 'HTTP 200' };
      },
      recordAgentStep: async () => undefined,
      recordAgentEvents: async ({ events }) => {
        this.events.push(...events);
      },
      finishAgentRun: async (input) => {
        this.finished = input;
      },
    };
  }
}

function runInput(overrides: Partial<AgentWorkflowInput> = {}): AgentWorkflowInput {
  return {
    runId: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    teamId: 'team',
    prompt: 'Compare the prices',
    urls: [],
    strictConstrainToURLs: false,
    maxSteps: 10,
    ...overrides,
  };
}

const scrape = (url: string): Scripted => ({ tool: 'scrape', parameters: { url } });

describe('agent workflow, with stub activities', () => {
  it('keeps a run and its sub-agent within maxCredits: the sub-agent spends its share, the parent stops at the cap', async () => {
    const run = new FakeAgentRun()
      .script('', { tool: 'spawn_subagent', task: 'Find the widget' }, scrape('https://a.test/1'), scrape('https://a.test/2'), scrape('https://a.test/3'))
      .script('1', ...Array.from({ length: 5 }, (_, i) => scrape(`https://b.test/${i}`)));
    const input = runInput({ maxCredits: 4 });
    const result = await workflowEnv().withWorker(run.activities(), (taskQueue) =>
      workflowEnv().env.client.workflow.execute(agentWorkflow, { taskQueue, workflowId: `cap-${input.runId}`, args: [input] }),
    );
    expect(result.outcome).toBe('credit_limit_reached');
    // The sub-agent had half of the 4 credits and used them; the parent the other two.
    expect(run.tools.filter((t) => t.agentKey === '1')).toHaveLength(2);
    expect(run.tools.filter((t) => t.agentKey === '')).toHaveLength(2);
    expect(run.tools.length).toBeLessThanOrEqual(4);
    expect(run.finished).toMatchObject({ outcome: 'credit_limit_reached', runId: input.runId });
    expect(run.eventsOf('1', 'agent.finished')).toEqual([expect.objectContaining({ outcome: 'credit_limit_reached' })]);
  }, 60_000);

  it('ends a sub-agent still working when its parent finishes with parent_finished, and the run succeeds', async () => {
    const run = new FakeAgentRun().script('', { tool: 'spawn_subagent', task: 'A slow sub-task' }, { tool: 'finish' }).script('1', { tool: 'hang' });
    const input = runInput();
    const result = await workflowEnv().withWorker(run.activities(), async (taskQueue) => {
      // The worker shuts down after the body, once its activities end: the hanging step must.
      const done = workflowEnv().env.client.workflow.execute(agentWorkflow, { taskQueue, workflowId: `outlive-${input.runId}`, args: [input] });
      return done.finally(() => run.release());
    });
    expect(result.outcome).toBe('succeeded');
    expect(run.finished).toMatchObject({ outcome: 'succeeded', snapshotId: 'result-main-2' });
    expect(run.eventsOf('1', 'agent.finished')).toEqual([
      expect.objectContaining({ outcome: 'cancelled', error: expect.objectContaining({ code: 'parent_finished' }) }),
    ]);
  }, 60_000);

  it('cancels a run while its sub-agents work: every agent ends cancelled, the run is finished as cancelled once', async () => {
    const run = new FakeAgentRun()
      .script('', { tool: 'spawn_subagent', task: 'one' }, { tool: 'spawn_subagent', task: 'two' }, { tool: 'wait_for_subagents' })
      .script('1', { tool: 'hang' })
      .script('2', { tool: 'hang' });
    const input = runInput();
    const outcome = await workflowEnv().withWorker(run.activities(), async (taskQueue) => {
      const handle = await workflowEnv().env.client.workflow.start(agentWorkflow, { taskQueue, workflowId: `cancel-${input.runId}`, args: [input] });
      // Both sub-agents are at their first step.
      while (run.steps.filter((s) => s.agentKey !== '').length < 2) await new Promise((r) => setTimeout(r, 20));
      await handle.cancel();
      const ended = await handle.result().then(
        () => 'completed',
        (err: Error) => err.name,
      );
      run.release();
      return ended;
    });
    expect(outcome).toBe('WorkflowFailedError');
    expect(run.finished).toMatchObject({ outcome: 'cancelled' });
    for (const key of ['1', '2']) expect(run.eventsOf(key, 'agent.finished')).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
    expect(run.eventsOf('', 'run.finished')).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
  }, 60_000);

  it('gives a result that misses the schema one repair round, then fails the run', async () => {
    const run = new FakeAgentRun().script('', { tool: 'reject', errors: 'must have products' }, { tool: 'reject', errors: 'still no products' });
    const input = runInput();
    const result = await workflowEnv().withWorker(run.activities(), (taskQueue) =>
      workflowEnv().env.client.workflow.execute(agentWorkflow, { taskQueue, workflowId: `repair-${input.runId}`, args: [input] }),
    );
    expect(result).toEqual({ outcome: 'failed', creditsUsed: 0 });
    // The second decision was told what was wrong with the first.
    expect(run.steps.map((s) => s.repair)).toEqual([undefined, 'must have products']);
    expect(run.finished?.error).toMatch(/again after one repair round \(step 2 of 10\): still no products/);
  }, 60_000);

  it('calls a tool again after durable waits while the team has no free slot, and charges it once', async () => {
    const run = new FakeAgentRun().script('', scrape('https://a.test/'));
    run.deferTools = 2;
    const input = runInput();
    const result = await workflowEnv().withWorker(run.activities(), (taskQueue) =>
      workflowEnv().env.client.workflow.execute(agentWorkflow, { taskQueue, workflowId: `slot-${input.runId}`, args: [input] }),
    );
    expect(result).toEqual({ outcome: 'succeeded', creditsUsed: 1 });
    expect(run.deferTools).toBe(0);
    expect(run.tools).toHaveLength(1);
  }, 60_000);
});
