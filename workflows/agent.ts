/**
 * POST /v2/agent: an agent run (agentWorkflow), whose orchestrator may hand sub-tasks to
 * sub-agents (subAgentWorkflow, child workflows). Both run workflows/agent-loop.ts. The credit
 * cap, the step budget and the trace's numbering are workflow state; step results and snapshots
 * live in Postgres.
 *
 * A run ends `succeeded` (a result that matches the schema), `refused`, `credit_limit_reached`
 * (the next tool would pass maxCredits), `cancelled` (DELETE), or `failed` (steps ran out, or an
 * internal error). Every end but success refunds the run: failed runs are not billed. Sub-agents
 * still running when their parent ends stop, and their part of the trace ends `parent_finished`.
 */
import { CancellationScope, isCancellation, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { FinishAgentRunInput } from '../activities/agent/run.js';
import type { TrawlActivities } from '../activities/index.js';
import { fromFailure } from '../lib/errors.js';
import { BOOKKEEPING_RETRY_POLICY } from './activities.js';
import { AgentLoop, type AgentLoopInput, type SubAgentInput, type SubAgentResult } from './agent-loop.js';
import { AgentTrace, type TraceError } from './agent-trace.js';
import { parentFinishedSignal } from './messages.js';
import { WebhookFanout } from './webhook-fanout.js';

export interface AgentWorkflowInput extends Omit<AgentLoopInput, 'agentKey' | 'depth' | 'budget'> {
  maxCredits?: number;
}

export interface AgentWorkflowResult {
  outcome: FinishAgentRunInput['outcome'];
  creditsUsed: number;
}

const { finishAgentRun } = proxyActivities<TrawlActivities>({ startToCloseTimeout: '30s', retry: BOOKKEEPING_RETRY_POLICY });

const cancelledError = (message: string): TraceError => ({ code: 'cancelled', retryable: false, message });

function internalError(err: unknown): TraceError {
  return { code: 'internal', retryable: false, message: fromFailure(err)?.message ?? (err instanceof Error ? err.message : String(err)) };
}

export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  const trace = new AgentTrace(input.runId, '', { id: input.runId, role: 'orchestrator', name: 'spark-2' });
  const webhooks = new WebhookFanout({ jobId: input.runId, teamId: input.teamId, kind: 'agent', webhook: input.webhook });
  const loop = new AgentLoop({ ...input, agentKey: '', depth: 0, budget: input.maxCredits }, trace, (action) =>
    webhooks.notify('action', { data: [{ ...action }] }),
  );

  const end = async (outcome: FinishAgentRunInput['outcome'], extra: { snapshotId?: string; error?: TraceError } = {}): Promise<AgentWorkflowResult> => {
    await CancellationScope.nonCancellable(async () => {
      await loop.stopSubAgents(outcome === 'cancelled' ? 'cancelled' : 'parent_finished');
      if (extra.error && outcome !== 'cancelled') trace.emit('error.occurred', { error: extra.error });
      trace.emit('run.finished', { outcome, ...(extra.error && { error: extra.error }) });
      await trace.flush();
      await finishAgentRun({ runId: input.runId, teamId: input.teamId, outcome, snapshotId: extra.snapshotId, error: extra.error?.message });
      webhooks.notify(outcome === 'succeeded' ? 'completed' : outcome === 'cancelled' ? 'cancelled' : 'failed', { error: extra.error?.message });
      await webhooks.drain();
    });
    setCurrentDetails(`**${outcome}** after ${trace.count} events, ${loop.creditsUsed} credits`);
    return { outcome, creditsUsed: outcome === 'succeeded' ? loop.creditsUsed : 0 };
  };

  trace.emit('run.started', { prompt: input.prompt, urls: input.urls });
  webhooks.notify('started');
  try {
    const result = await loop.run();
    return await end(result.outcome, result.outcome === 'succeeded' ? { snapshotId: result.snapshotId } : { error: result.error });
  } catch (err) {
    if (isCancellation(err)) {
      await end('cancelled', { error: cancelledError('The agent run was cancelled') });
      throw err;
    }
    return await end('failed', { error: internalError(err) });
  }
}

/**
 * A sub-agent: the loop on a sub-task, its events in the run's trace under its own agent. It
 * answers its parent with a snapshot of its result. A parent that ends first signals it to stop.
 */
export async function subAgentWorkflow(input: SubAgentInput): Promise<SubAgentResult> {
  const trace = new AgentTrace(input.runId, input.agentKey, { id: `${input.runId}/${input.agentKey}`, role: 'subagent', name: 'spark-2', parentId: input.parentAgentId });
  const webhooks = new WebhookFanout({ jobId: input.runId, teamId: input.teamId, kind: 'agent', webhook: input.webhook });
  const loop = new AgentLoop(input, trace, (action) => webhooks.notify('action', { data: [{ ...action }] }));
  const work = new CancellationScope();
  let parentFinished = false;
  setHandler(parentFinishedSignal, () => {
    parentFinished = true;
    // Signalled before the cancellation of this work reaches them, so they end parent_finished too.
    loop.tellSubAgentsParentFinished();
    work.cancel();
  });
  const startedAt = Date.now();

  const end = async (result: SubAgentResult, error?: TraceError): Promise<SubAgentResult> => {
    await CancellationScope.nonCancellable(async () => {
      await loop.stopSubAgents(result.outcome === 'cancelled' ? 'cancelled' : 'parent_finished');
      const outcome = result.outcome === 'parent_finished' ? 'cancelled' : result.outcome;
      trace.emit('agent.finished', { outcome, durationMs: Date.now() - startedAt, ...(error && { error }) });
      await trace.flush();
      await webhooks.drain();
    });
    setCurrentDetails(`**${result.outcome}** after ${trace.count} events, ${loop.creditsUsed} credits`);
    return result;
  };

  trace.emit('agent.started', { task: input.prompt });
  try {
    const result = await work.run(() => loop.run());
    const { creditsUsed } = loop;
    if (result.outcome === 'succeeded') return await end({ outcome: 'succeeded', creditsUsed, snapshotId: result.snapshotId });
    return await end({ outcome: result.outcome, creditsUsed, error: result.error.message }, result.error);
  } catch (err) {
    if (isCancellation(err) && parentFinished) {
      const message = 'The parent agent finished first';
      return await end({ outcome: 'parent_finished', creditsUsed: loop.creditsUsed, error: message }, { code: 'parent_finished', retryable: false, message });
    }
    if (isCancellation(err)) {
      await end({ outcome: 'cancelled', creditsUsed: loop.creditsUsed }, cancelledError('The agent run was cancelled'));
      throw err;
    }
    const error = internalError(err);
    return await end({ outcome: 'failed', creditsUsed: loop.creditsUsed, error: error.message }, error);
  }
}
