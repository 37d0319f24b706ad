/**
 * The activities of an agent run (workflows/agent.ts): one model decision per step, one tool per
 * step, the trace, and the run's end. Step results and snapshots stay in Postgres; the workflow
 * gets small decisions and figures back. Sub-agents use the same activities under their own
 * agent key.
 */
import { createHash } from 'node:crypto';
import type { ThreatProtectionOverride } from '../../contracts/scrape-options.js';
import {
  appendTraceEvents,
  findSnapshot,
  listAgentSteps,
  refundFailedRun,
  saveAgentStep,
  saveSnapshot,
  type AgentKey,
  type TraceEvent,
} from '../../db/repositories/agent-runs.js';
import { readThread } from '../../db/repositories/agent-threads.js';
import { completeJobWithResult, finishJob } from '../../db/repositories/jobs.js';
import { findTeamPlan } from '../../db/repositories/plans.js';
import { resolvePlan } from '../../lib/plans.js';
import { decideNextAction, type FetchTool, type ToolParameters } from '../../llm/agent-step.js';
import { validatorFor, type JsonSchema } from '../../llm/json-schema.js';
import { atActivityBoundary } from '../boundary.js';
import type { ActivityDeps } from '../deps.js';
import { modelFor } from '../page/enrich/model.js';
import { NO_SLOT } from '../page/pipeline.js';
import { withPageSignal } from '../page/signal.js';
import { chargeWith, requireCredits } from '../page/team-budget.js';
import type { RobotsLookup } from '../site/site-rules.js';
import { allowedUrl, createAgentTools } from './tools.js';

export interface AgentTask {
  runId: string;
  teamId: string;
  prompt: string;
  schema?: JsonSchema;
  urls: string[];
  strictConstrainToURLs: boolean;
  /** The request's override of the team's threat protection, for every page the tools fetch. */
  threatProtection?: ThreatProtectionOverride;
  /** The run's thread and turn: the orchestrator's decisions read the earlier turns. */
  thread?: { id: string; turn: number };
}

/** Which agent of the run an activity works for. */
export interface AgentRef {
  runId: string;
  agentKey: AgentKey;
}

export interface AgentStepInput extends AgentTask, AgentRef {
  step: number;
  stepsLeft: number;
  repair?: string;
  canSpawn: boolean;
  subAgentsRunning: number;
  /** Hash of the last partial result snapshotted, so an unchanged one is not snapshotted again. */
  lastPartialHash?: string;
}

export type AgentDecision = (
  | { tool: FetchTool; parameters: ToolParameters }
  | { tool: 'spawn_subagent'; task: string }
  | { tool: 'wait_for_subagents' }
  | { tool: 'finish'; accepted: true; snapshotId: string }
  | { tool: 'finish'; accepted: false; errors: string }
  | { tool: 'refuse'; reason: string }
) & { partial?: { snapshotId: string; hash: string } };

export interface AgentToolInput extends AgentTask, AgentRef {
  step: number;
  tool: FetchTool;
  parameters: ToolParameters;
}

export interface AgentToolResult {
  credits: number;
  summary: string;
  /** Set when the call itself was malformed (and nothing ran): what was wrong with it. */
  invalid?: string;
  /**
   * None of the team's concurrency slots came free in time: nothing ran or was recorded, and the
   * workflow calls the tool again after a durable timer (workflows/slot-wait.ts).
   */
  deferred?: boolean;
}

/** A step the workflow settles itself (a sub-agent started or answered, a refusal): its transcript entry. */
export interface RecordAgentStepInput extends AgentRef {
  step: number;
  tool: string;
  parameters: Record<string, unknown>;
  result: string;
  /** A snapshot whose content is appended to the result (a sub-agent's answer). */
  snapshotId?: string;
}

export interface FinishAgentRunInput {
  runId: string;
  teamId: string;
  outcome: 'succeeded' | 'failed' | 'cancelled' | 'refused' | 'credit_limit_reached';
  snapshotId?: string;
  error?: string;
}

const MODEL_TIMEOUT_MS = 120_000;

/** Snapshot ids are path segments: the agent key's dots become underscores. */
export function snapshotIdFor(agentKey: AgentKey, kind: 'result' | 'partial', step: number): string {
  return agentKey ? `agent-${agentKey.replaceAll('.', '_')}-${kind}-${step}` : `${kind}-${step}`;
}

/** What is wrong with a tool call's parameters, or undefined when it can run. */
export function invalidToolCall(tool: FetchTool, parameters: ToolParameters): string | undefined {
  if (tool === 'search') return parameters.query?.trim() ? undefined : 'search needs a non-empty query';
  const url = parameters.url?.trim();
  if (!url) return `${tool} needs a url`;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? undefined : `${tool} needs an http or https url, not ${JSON.stringify(url)}`;
  } catch {
    return `${tool} needs an absolute url, not ${JSON.stringify(url)}`;
  }
}

export function createAgentActivities(deps: ActivityDeps, robotsFor: RobotsLookup) {
  const runTool = createAgentTools(deps, robotsFor);

  async function snapshotPartial(input: AgentStepInput, partial: unknown): Promise<AgentDecision['partial']> {
    if (partial === undefined) return undefined;
    const hash = createHash('sha256').update(JSON.stringify(partial)).digest('hex').slice(0, 16);
    if (hash === input.lastPartialHash) return undefined;
    const snapshotId = snapshotIdFor(input.agentKey, 'partial', input.step);
    await saveSnapshot(deps.db, input.runId, snapshotId, partial);
    return { snapshotId, hash };
  }

  return {
    async agentStep(input: AgentStepInput): Promise<AgentDecision> {
      return atActivityBoundary(() =>
        withPageSignal(Date.now() + MODEL_TIMEOUT_MS, async (signal) => {
          const steps = await listAgentSteps(deps.db, input.runId, input.agentKey);
          // Read on every step, not carried in the workflow's input: a thread's answers can be large.
          const earlier = input.thread && input.agentKey === '' ? await readThread(deps.db, input.teamId, input.thread.id, input.thread.turn) : undefined;
          const { partial, ...action } = await decideNextAction(modelFor(deps, { teamId: input.teamId, jobId: input.runId }, 'agent'), {
            task: input.prompt,
            schema: input.schema,
            urls: input.urls,
            constrained: input.strictConstrainToURLs,
            steps,
            stepsLeft: input.stepsLeft,
            repair: input.repair,
            canSpawn: input.canSpawn,
            subAgentsRunning: input.subAgentsRunning,
            conversation: earlier?.runs.map((r) => ({
              turn: r.turn,
              prompt: String(r.options.prompt ?? ''),
              outcome: r.answer !== undefined ? { answer: r.answer } : { error: r.error ?? `the run ended ${r.status}` },
            })),
            signal,
          });
          if (action.tool !== 'finish') {
            const snapshot = await snapshotPartial(input, partial);
            return snapshot ? { ...action, partial: snapshot } : action;
          }
          if (input.schema) {
            const validate = validatorFor(input.schema);
            if (!validate(action.result)) return { tool: 'finish', accepted: false, errors: validate.errorsText() };
          }
          const snapshotId = snapshotIdFor(input.agentKey, 'result', input.step);
          await saveSnapshot(deps.db, input.runId, snapshotId, action.result);
          return { tool: 'finish', accepted: true, snapshotId };
        }),
      );
    },

    async agentTool(input: AgentToolInput): Promise<AgentToolResult> {
      return atActivityBoundary(() =>
        withPageSignal(Date.now() + MODEL_TIMEOUT_MS, async (signal) => {
          const { parameters } = input;
          const step = { runId: input.runId, agentKey: input.agentKey, step: input.step, tool: input.tool, input: { ...parameters } };
          const invalid = invalidToolCall(input.tool, parameters);
          if (invalid) {
            await saveAgentStep(deps.db, { ...step, result: `Invalid call, nothing was run: ${invalid}. Correct the parameters, or use another tool.` });
            return { credits: 0, summary: `invalid: ${invalid}`, invalid };
          }
          if (input.strictConstrainToURLs && input.tool !== 'search' && !allowedUrl(parameters.url ?? '', input.urls)) {
            const refusal = `Refused: ${parameters.url} is outside the URLs this run may visit (strictConstrainToURLs). Use only ${input.urls.join(', ')}.`;
            await saveAgentStep(deps.db, { ...step, result: refusal });
            return { credits: 0, summary: 'refused: outside the allowed URLs' };
          }
          let outcome;
          try {
            const { runId, teamId, tool, threatProtection } = input;
            outcome = await runTool({ runId, teamId, tool, ...parameters, threatProtection, signal });
          } catch (err) {
            if (signal.aborted) throw err;
            // A tool that fails is a result the model can work around, not the run's failure.
            const message = err instanceof Error ? err.message : String(err);
            await saveAgentStep(deps.db, { ...step, result: `Failed: ${message}` });
            return { credits: 0, summary: `failed: ${message}` };
          }
          if (outcome === NO_SLOT) return { credits: 0, summary: 'waiting for a concurrency slot', deferred: true };
          const { plan } = await requireCredits(deps.db, input.teamId);
          const chargeKey = `agent:${input.runId}:${input.agentKey || 'main'}:${input.step}`;
          const charge = { teamId: input.teamId, jobId: input.runId, chargeKey, reason: `agent:${input.tool}`, credits: outcome.credits };
          await chargeWith(deps.db, plan, charge, (trx) => saveAgentStep(trx, { ...step, result: outcome.text }));
          return { credits: outcome.credits, summary: outcome.summary };
        }),
      );
    },

    async recordAgentStep(input: RecordAgentStepInput): Promise<void> {
      const snapshot = input.snapshotId ? await findSnapshot(deps.db, input.runId, input.snapshotId) : undefined;
      const result = snapshot ? `${input.result}\n${JSON.stringify(snapshot.content)}` : input.result;
      await saveAgentStep(deps.db, { runId: input.runId, agentKey: input.agentKey, step: input.step, tool: input.tool, input: input.parameters, result });
    },

    async recordAgentEvents(input: AgentRef & { events: TraceEvent[] }): Promise<void> {
      await appendTraceEvents(deps.db, input.runId, input.agentKey, input.events);
    },

    /** Completes a run with its result, or fails it and refunds it: failed runs are not billed. */
    async finishAgentRun(input: FinishAgentRunInput): Promise<void> {
      if (input.outcome === 'succeeded' && input.snapshotId) {
        await completeJobWithResult(deps.db, input.runId, { snapshotId: input.snapshotId });
        return;
      }
      const allowance = resolvePlan(await findTeamPlan(deps.db, input.teamId)).unbilledFailedAgentPages;
      const { refunded, toolCalls } = await refundFailedRun(deps.db, input.teamId, input.runId, allowance);
      const error = input.error ?? 'The agent run failed';
      const billed = refunded
        ? ''
        : ` Its ${toolCalls} tool call(s) stay billed: the team's failed agent runs have used this month's ${allowance} unbilled tool calls.`;
      // A cancelled run's row already says so (the API flipped it); finishJob never overwrites that.
      await finishJob(deps.db, input.runId, 'failed', { error: `${error}${billed}` });
    },
  };
}
