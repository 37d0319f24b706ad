/**
 * The step loop every agent of a run shares, the orchestrator and its sub-agents alike: a model
 * decision (an activity), then the tool it picked. Fetching tools are activities; sub-agents are
 * child workflows, each with a share of the credits reserved for it until it answers, so the
 * run's cap holds however many work at once.
 */
import {
  condition,
  proxyActivities,
  setCurrentDetails,
  startChild,
  workflowInfo,
  ParentClosePolicy,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { AgentDecision, AgentTask, AgentToolInput } from '../activities/agent/run.js';
import type { TrawlActivities } from '../activities/index.js';
import type { WebhookConfig } from '../contracts/webhook.js';
import type { AgentKey } from '../db/repositories/agent-runs.js';
import { AGENT_TOOL_EXPECTED_CREDITS } from '../lib/credits.js';
import { fromFailure } from '../lib/errors.js';
import { PAGE_RETRY_POLICY } from './activities.js';
import type { AgentTrace, TraceError } from './agent-trace.js';
import { parentFinishedSignal } from './messages.js';
import { untilSlotGranted } from './slot-wait.js';
import { subAgentWorkflowId } from '../lib/workflow-ids.js';

type FetchTool = AgentToolInput['tool'];

export interface AgentLoopInput extends AgentTask {
  agentKey: AgentKey;
  /** 0 for the orchestrator. */
  depth: number;
  maxSteps: number;
  /** Credits this agent and its sub-agents may spend; none: no cap. */
  budget?: number;
  webhook?: WebhookConfig;
}

export interface SubAgentInput extends AgentLoopInput {
  parentAgentId: string;
}

export interface SubAgentResult {
  outcome: LoopEnd['outcome'] | 'cancelled' | 'parent_finished';
  creditsUsed: number;
  snapshotId?: string;
  error?: string;
}

/** workflows/agent.ts's subAgentWorkflow, started by name: that module imports this one. */
type SubAgentWorkflow = (input: SubAgentInput) => Promise<SubAgentResult>;

export type LoopEnd =
  | { outcome: 'succeeded'; snapshotId: string }
  | { outcome: 'refused' | 'credit_limit_reached' | 'failed'; error: TraceError };

/** Sub-agents may spawn their own down to this depth, each agent at most MAX_SUBAGENTS of them. */
export const MAX_SUBAGENT_DEPTH = 2;
export const MAX_SUBAGENTS = 4;
const MAX_SUBAGENT_STEPS = 8;
/** How long an ending agent waits for its stopped sub-agents to write their ends. */
const STOP_GRACE = '2 minutes';

const { agentStep, agentTool, recordAgentStep } = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '3m',
  heartbeatTimeout: '20s',
  retry: PAGE_RETRY_POLICY,
});

interface SubAgent {
  step: number;
  key: AgentKey;
  reserved: number;
  handle: ChildWorkflowHandle<SubAgentWorkflow>;
}

/** A tool call as webhooks' `action` events and the trace describe it. */
export interface AgentAction {
  agent: string;
  step: number;
  tool: string;
  parameters: Record<string, unknown>;
  result: string;
  creditsUsed: number;
}

export class AgentLoop {
  creditsUsed = 0;
  private reserved = 0;
  private spawned = 0;
  private readonly running = new Map<number, SubAgent>();
  private readonly answered: Array<{ child: SubAgent; result?: SubAgentResult; failure?: string }> = [];

  constructor(
    private readonly input: AgentLoopInput,
    private readonly trace: AgentTrace,
    private readonly onAction: (action: AgentAction) => void,
  ) {}

  async run(): Promise<LoopEnd> {
    const { input, trace } = this;
    let repair: string | undefined;
    let repaired = false;
    let lastPartialHash: string | undefined;
    let lastInvalid: string | undefined;
    for (let step = 1; step <= input.maxSteps; step++) {
      await this.settleAnswers();
      await trace.flush();
      this.details(`Step ${step} of at most ${input.maxSteps}: deciding`);
      const decision: AgentDecision = await agentStep({
        ...input,
        step,
        stepsLeft: input.maxSteps - step + 1,
        repair,
        canSpawn: this.canSpawn(),
        subAgentsRunning: this.running.size,
        lastPartialHash,
      });
      if (decision.partial) {
        lastPartialHash = decision.partial.hash;
        trace.emit('artifact.updated', { artifact: { kind: 'json', artifactId: 'result', snapshotId: decision.partial.snapshotId, change: 'partial' } });
      }
      switch (decision.tool) {
        case 'refuse':
          return { outcome: 'refused', error: { code: 'refused', retryable: false, message: `The agent refused the task: ${decision.reason}` } };
        case 'finish':
          if (decision.accepted) {
            trace.emit('artifact.updated', { artifact: { kind: 'json', artifactId: 'result', snapshotId: decision.snapshotId, change: 'update' } });
            return { outcome: 'succeeded', snapshotId: decision.snapshotId };
          }
          if (repaired) {
            const message = `The agent's result did not match the schema, and again after one repair round (step ${step} of ${input.maxSteps}): ${decision.errors}`;
            return { outcome: 'failed', error: { code: 'internal', retryable: false, message } };
          }
          // One repair round: the next decision sees what was wrong.
          repaired = true;
          repair = decision.errors;
          trace.emit('error.occurred', { error: { code: 'internal', retryable: true, message: `The result does not match the schema: ${decision.errors}` } });
          continue;
        case 'spawn_subagent':
          await this.spawn(step, decision.task);
          continue;
        case 'wait_for_subagents':
          await this.waitForSubAgents(step);
          continue;
        default: {
          const limit = await this.overBudget(AGENT_TOOL_EXPECTED_CREDITS[decision.tool], decision.tool);
          if (limit) return limit;
          const invalid = await this.fetchTool(step, decision);
          if (invalid && invalid === lastInvalid) {
            const message = `The agent repeated an invalid ${decision.tool} call after being told what was wrong (${invalid}), so the run was stopped at step ${step}`;
            return { outcome: 'failed', error: { code: 'internal', retryable: false, message } };
          }
          lastInvalid = invalid;
        }
      }
    }
    return this.stepsRanOut();
  }

  /**
   * Waits for the sub-agents still running to end. Unless this agent was cancelled (which reaches
   * them as a cancellation of their own), they are told their parent finished first, so their part
   * of the trace ends with `parent_finished`.
   */
  async stopSubAgents(how: 'parent_finished' | 'cancelled'): Promise<void> {
    if (how === 'parent_finished') this.tellSubAgentsParentFinished();
    await condition(() => this.running.size === 0, STOP_GRACE);
    await this.settleAnswers();
  }

  /**
   * Sent before this agent's own work is cancelled (a sub-agent whose parent finished), so its
   * sub-agents get the signal ahead of the cancellation and end `parent_finished` too.
   */
  tellSubAgentsParentFinished(): void {
    for (const child of this.running.values()) void child.handle.signal(parentFinishedSignal).catch(() => undefined);
  }

  /** Runs the tool; returns what was wrong with the call when it was malformed and nothing ran. */
  private async fetchTool(step: number, decision: Extract<AgentDecision, { tool: FetchTool }>): Promise<string | undefined> {
    const { parameters } = decision;
    const toolCallId = this.toolCallId(step);
    this.trace.emit('tool_call.started', { toolCallId, toolName: decision.tool, parameters });
    this.details(`Step ${step}: ${decision.tool} ${JSON.stringify(parameters)}`);
    const result = await untilSlotGranted(() => agentTool({ ...this.input, step, tool: decision.tool, parameters }));
    this.creditsUsed += result.credits;
    this.trace.emit('tool_call.finished', { toolCallId, toolName: decision.tool, result: result.summary, creditsUsed: result.credits });
    this.onAction({ agent: this.input.agentKey || 'main', step, tool: decision.tool, parameters: { ...parameters }, result: result.summary, creditsUsed: result.credits });
    return result.invalid;
  }

  /** The next tool would pass the budget: first let running sub-agents give back what they did not use. */
  private async overBudget(cost: number, tool: string): Promise<LoopEnd | undefined> {
    const { budget } = this.input;
    if (budget === undefined || this.creditsUsed + this.reserved + cost <= budget) return undefined;
    if (this.running.size > 0) {
      await condition(() => this.running.size === 0);
      await this.settleAnswers();
    }
    if (this.creditsUsed + cost <= budget) return undefined;
    const message = `Agent reached its credit limit (maxCredits ${budget}; ${this.creditsUsed} used, the next ${tool} costs ${cost})`;
    return { outcome: 'credit_limit_reached', error: { code: 'credit_limit_reached', retryable: false, message } };
  }

  private canSpawn(): boolean {
    return this.input.depth < MAX_SUBAGENT_DEPTH && this.spawned < MAX_SUBAGENTS;
  }

  private async spawn(step: number, task: string): Promise<void> {
    const { input, trace } = this;
    const toolCallId = this.toolCallId(step);
    trace.emit('tool_call.started', { toolCallId, toolName: 'spawn_subagent', parameters: { task } });
    const left = input.budget === undefined ? undefined : input.budget - this.creditsUsed - this.reserved;
    // Half of what is left, so the spawner keeps enough to go on.
    const share = left === undefined ? undefined : Math.floor(left / 2);
    const refusal = !this.canSpawn()
      ? `Refused: no more helpers (at most ${MAX_SUBAGENTS} per agent, ${MAX_SUBAGENT_DEPTH} levels deep). Do the work yourself.`
      : !task
        ? 'Refused: a helper needs a task.'
        : share !== undefined && share < 1
          ? 'Refused: not enough credits left to share with a helper. Do the work yourself.'
          : undefined;
    if (refusal) {
      await recordAgentStep({ runId: input.runId, agentKey: input.agentKey, step, tool: 'spawn_subagent', parameters: { task }, result: refusal });
      trace.emit('tool_call.finished', { toolCallId, toolName: 'spawn_subagent', result: refusal, creditsUsed: 0 });
      return;
    }
    const key = input.agentKey ? `${input.agentKey}.${step}` : String(step);
    await recordAgentStep({ runId: input.runId, agentKey: input.agentKey, step, tool: 'spawn_subagent', parameters: { task }, result: `Helper ${key} is working on it.` });
    await trace.flush();
    this.spawned++;
    const { urls, strictConstrainToURLs, threatProtection, runId, teamId, webhook } = input;
    const handle = await startChild<SubAgentWorkflow>('subAgentWorkflow', {
      workflowId: subAgentWorkflowId(workflowInfo().workflowId, step),
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      args: [
        {
          runId,
          teamId,
          prompt: task,
          urls,
          strictConstrainToURLs,
          threatProtection,
          webhook,
          agentKey: key,
          parentAgentId: trace.agent.id,
          depth: input.depth + 1,
          maxSteps: Math.min(input.maxSteps, MAX_SUBAGENT_STEPS),
          budget: share,
        },
      ],
    });
    const child: SubAgent = { step, key, reserved: share ?? 0, handle };
    this.reserved += child.reserved;
    this.running.set(step, child);
    void handle.result().then(
      (result) => this.answer(child, { result }),
      (err: unknown) => this.answer(child, { failure: fromFailure(err)?.message ?? String(err) }),
    );
  }

  private answer(child: SubAgent, outcome: { result?: SubAgentResult; failure?: string }): void {
    this.running.delete(child.step);
    this.reserved -= child.reserved;
    this.creditsUsed += outcome.result?.creditsUsed ?? 0;
    this.answered.push({ child, ...outcome });
  }

  /** Puts the answers of sub-agents that ended into this agent's transcript and trace. */
  private async settleAnswers(): Promise<void> {
    const { input, trace } = this;
    for (const { child, result, failure } of this.answered.splice(0)) {
      const summary = result?.outcome === 'succeeded' ? `Helper ${child.key} answered:` : `Helper ${child.key} ended without an answer: ${result?.error ?? failure}`;
      await recordAgentStep({ runId: input.runId, agentKey: input.agentKey, step: child.step, tool: 'spawn_subagent', parameters: { helper: child.key }, result: summary, snapshotId: result?.snapshotId });
      trace.emit('tool_call.finished', { toolCallId: this.toolCallId(child.step), toolName: 'spawn_subagent', result: result?.outcome ?? 'failed', creditsUsed: result?.creditsUsed ?? 0 });
      this.onAction({ agent: input.agentKey || 'main', step: child.step, tool: 'spawn_subagent', parameters: { helper: child.key }, result: result?.outcome ?? 'failed', creditsUsed: result?.creditsUsed ?? 0 });
    }
  }

  private async waitForSubAgents(step: number): Promise<void> {
    const toolCallId = this.toolCallId(step);
    const waited = this.running.size;
    this.trace.emit('tool_call.started', { toolCallId, toolName: 'wait_for_subagents', parameters: {} });
    this.details(`Step ${step}: waiting for ${waited} helper(s)`);
    await this.trace.flush();
    await condition(() => this.running.size === 0);
    const result = waited ? `All ${waited} helper(s) answered; their answers are with the steps that spawned them.` : 'No helpers were running.';
    await recordAgentStep({ runId: this.input.runId, agentKey: this.input.agentKey, step, tool: 'wait_for_subagents', parameters: {}, result });
    this.trace.emit('tool_call.finished', { toolCallId, toolName: 'wait_for_subagents', result, creditsUsed: 0 });
  }

  private stepsRanOut(): LoopEnd {
    return { outcome: 'failed', error: { code: 'internal', retryable: false, message: `The agent did not finish with a valid result within ${this.input.maxSteps} steps` } };
  }

  private toolCallId(step: number): string {
    return this.input.agentKey ? `${this.input.agentKey}-step-${step}` : `step-${step}`;
  }

  private details(doing: string): void {
    const who = this.input.agentKey ? `Helper ${this.input.agentKey}` : 'Orchestrator';
    setCurrentDetails(`${who} · ${doing} · ${this.creditsUsed} credits used, ${this.running.size} helper(s) running`);
  }
}
