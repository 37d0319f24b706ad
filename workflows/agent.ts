/**
 * POST /v2/agent: an agent run. Each step is a model decision (an activity) and, unless the model
 * finishes or refuses, one tool (an activity). The credit cap, the step budget and the trace's
 * numbering are this workflow's state; step results and snapshots live in Postgres.
 *
 * Ends: `succeeded` (a result that matches the schema), `refused`, `credit_limit_reached` (the next
 * tool would pass maxCredits), `cancelled` (DELETE), `failed` (steps ran out, or an internal error).
 * Every end but success refunds the run: failed runs are not billed.
 */
import { CancellationScope, isCancellation, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { AgentDecision, AgentTask, FinishAgentRunInput } from '../activities/agent/run.js';
import type { TrawlActivities } from '../activities/index.js';
import type { TraceEvent } from '../db/repositories/agent-runs.js';
import { fromFailure } from '../lib/errors.js';
import { BOOKKEEPING_RETRY_POLICY, PAGE_RETRY_POLICY } from './activities.js';

export interface AgentWorkflowInput extends AgentTask {
  maxCredits?: number;
  /** From `effort`: how many steps the run may take. */
  maxSteps: number;
}

export interface AgentWorkflowResult {
  outcome: FinishAgentRunInput['outcome'];
  creditsUsed: number;
}

const { agentStep, agentTool } = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '3m',
  heartbeatTimeout: '20s',
  retry: PAGE_RETRY_POLICY,
});
const { recordAgentEvents, finishAgentRun } = proxyActivities<TrawlActivities>({ startToCloseTimeout: '30s', retry: BOOKKEEPING_RETRY_POLICY });

/** What a tool is expected to cost, checked against maxCredits before it runs (a scrape of a long PDF may cost more). */
const EXPECTED_COST = { search: 2, map: 1, scrape: 1 } as const;

type TraceError = { code: 'cancelled' | 'credit_limit_reached' | 'parent_finished' | 'refused' | 'internal'; retryable: boolean; message: string };

export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  let seq = 0;
  let creditsUsed = 0;
  const pending: TraceEvent[] = [];
  const agent = { id: input.runId, role: 'orchestrator', name: 'spark-2' };
  const emit = (type: string, payload: Record<string, unknown> = {}) => {
    const n = seq++;
    pending.push({ seq: n, type, payload: { schemaVersion: 1, eventId: `${input.runId}:${n}`, runId: input.runId, producerSequence: n, agent, type, ...payload } });
  };
  const flush = async () => {
    if (pending.length === 0) return;
    const events = pending.splice(0);
    await recordAgentEvents({ runId: input.runId, events });
  };
  const end = async (outcome: FinishAgentRunInput['outcome'], extra: { snapshotId?: string; error?: TraceError } = {}) => {
    await CancellationScope.nonCancellable(async () => {
      if (extra.error && outcome !== 'cancelled') emit('error.occurred', { error: extra.error });
      emit('run.finished', { outcome, ...(extra.error && { error: extra.error }) });
      await flush();
      await finishAgentRun({ runId: input.runId, teamId: input.teamId, outcome, snapshotId: extra.snapshotId, error: extra.error?.message });
    });
    setCurrentDetails(`**${outcome}** after ${seq} events, ${creditsUsed} credits`);
    return { outcome, creditsUsed: outcome === 'succeeded' ? creditsUsed : 0 };
  };

  emit('run.started', { prompt: input.prompt, urls: input.urls });
  try {
    let repair: string | undefined;
    let repaired = false;
    for (let step = 1; step <= input.maxSteps; step++) {
      await flush();
      setCurrentDetails(`Step ${step} of at most ${input.maxSteps}: deciding · ${creditsUsed} credits used`);
      const decision: AgentDecision = await agentStep({ ...input, step, stepsLeft: input.maxSteps - step + 1, repair });
      if (decision.tool === 'refuse') {
        return await end('refused', { error: { code: 'refused', retryable: false, message: `The agent refused the task: ${decision.reason}` } });
      }
      if (decision.tool === 'finish') {
        if (decision.accepted) {
          emit('artifact.updated', { artifact: { kind: 'json', artifactId: 'result', snapshotId: decision.snapshotId, change: 'update' } });
          return await end('succeeded', { snapshotId: decision.snapshotId });
        }
        if (repaired) break;
        // One repair round: the next decision sees what was wrong.
        repaired = true;
        repair = decision.errors;
        emit('error.occurred', { error: { code: 'internal', retryable: true, message: `The result does not match the schema: ${decision.errors}` } });
        continue;
      }
      const cost = EXPECTED_COST[decision.tool];
      if (input.maxCredits !== undefined && creditsUsed + cost > input.maxCredits) {
        return await end('credit_limit_reached', {
          error: { code: 'credit_limit_reached', retryable: false, message: `Agent reached its credit limit (maxCredits ${input.maxCredits}; ${creditsUsed} used, the next ${decision.tool} costs ${cost})` },
        });
      }
      const toolCallId = `step-${step}`;
      const parameters = decision.tool === 'search' ? { query: decision.query } : { url: decision.url };
      emit('tool_call.started', { toolCallId, toolName: decision.tool, parameters });
      setCurrentDetails(`Step ${step}: ${decision.tool} ${JSON.stringify(parameters)} · ${creditsUsed} credits used`);
      const result = await agentTool({ ...input, step, tool: decision.tool, ...parameters });
      creditsUsed += result.credits;
      emit('tool_call.finished', { toolCallId, toolName: decision.tool, result: result.summary, creditsUsed: result.credits });
    }
    return await end('failed', { error: { code: 'internal', retryable: false, message: `The agent did not finish with a valid result within ${input.maxSteps} steps` } });
  } catch (err) {
    if (isCancellation(err)) {
      await end('cancelled', { error: { code: 'cancelled', retryable: false, message: 'The agent run was cancelled' } });
      throw err;
    }
    const message = fromFailure(err)?.message ?? (err instanceof Error ? err.message : String(err));
    return await end('failed', { error: { code: 'internal', retryable: false, message } });
  }
}
