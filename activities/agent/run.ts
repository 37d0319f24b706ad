/**
 * The activities of an agent run (workflows/agent.ts): one model decision per step, one tool per
 * step, the trace, and the run's end. Step results and snapshots stay in Postgres; the workflow
 * gets small decisions and figures back.
 */
import { Context } from '@temporalio/activity';
import type { ThreatProtectionOverride } from '../../contracts/scrape-options.js';
import { appendTraceEvents, listAgentSteps, refundRun, saveAgentStep, saveSnapshot, type TraceEvent } from '../../db/repositories/agent-runs.js';
import { completeJobWithResult, finishJob } from '../../db/repositories/jobs.js';
import { toApplicationFailure } from '../../lib/errors.js';
import { decideNextAction } from '../../llm/agent-step.js';
import { validatorFor, type JsonSchema } from '../../llm/json-schema.js';
import type { ActivityDeps } from '../deps.js';
import { modelFor } from '../page/enrich/model.js';
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
}

export interface AgentStepInput extends AgentTask {
  step: number;
  stepsLeft: number;
  repair?: string;
}

export type AgentDecision =
  | { tool: 'search'; query: string }
  | { tool: 'map' | 'scrape'; url: string }
  | { tool: 'finish'; accepted: true; snapshotId: string }
  | { tool: 'finish'; accepted: false; errors: string }
  | { tool: 'refuse'; reason: string };

export interface AgentToolInput extends AgentTask {
  step: number;
  tool: 'search' | 'map' | 'scrape';
  url?: string;
  query?: string;
}

export interface AgentToolResult {
  credits: number;
  summary: string;
}

export interface FinishAgentRunInput {
  runId: string;
  teamId: string;
  outcome: 'succeeded' | 'failed' | 'cancelled' | 'refused' | 'credit_limit_reached';
  snapshotId?: string;
  error?: string;
}

const MODEL_TIMEOUT_MS = 120_000;

export function createAgentActivities(deps: ActivityDeps, robotsFor: RobotsLookup) {
  const runTool = createAgentTools(deps, robotsFor);
  const failures = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (Context.current().cancellationSignal.aborted) throw err;
      throw toApplicationFailure(err);
    }
  };

  return {
    async agentStep(input: AgentStepInput): Promise<AgentDecision> {
      return failures(() =>
        withPageSignal(Date.now() + MODEL_TIMEOUT_MS, async (signal) => {
          const steps = await listAgentSteps(deps.db, input.runId);
          const action = await decideNextAction(modelFor(deps, { teamId: input.teamId, jobId: input.runId }, 'agent'), {
            task: input.prompt,
            schema: input.schema,
            urls: input.urls,
            constrained: input.strictConstrainToURLs,
            steps,
            stepsLeft: input.stepsLeft,
            repair: input.repair,
            signal,
          });
          if (action.tool !== 'finish') return action;
          if (input.schema) {
            const validate = validatorFor(input.schema);
            if (!validate(action.result)) return { tool: 'finish', accepted: false, errors: validate.errorsText() };
          }
          const snapshotId = `result-${input.step}`;
          await saveSnapshot(deps.db, input.runId, snapshotId, action.result);
          return { tool: 'finish', accepted: true, snapshotId };
        }),
      );
    },

    async agentTool(input: AgentToolInput): Promise<AgentToolResult> {
      return failures(() =>
        withPageSignal(Date.now() + MODEL_TIMEOUT_MS, async (signal) => {
          const params = input.tool === 'search' ? { query: input.query } : { url: input.url };
          if (input.strictConstrainToURLs && input.tool !== 'search' && !allowedUrl(input.url ?? '', input.urls)) {
            const refusal = `Refused: ${input.url} is outside the URLs this run may visit (strictConstrainToURLs). Use only ${input.urls.join(', ')}.`;
            await saveAgentStep(deps.db, input.runId, input.step, input.tool, params, refusal);
            return { credits: 0, summary: 'refused: outside the allowed URLs' };
          }
          let outcome;
          try {
            outcome = await runTool({ runId: input.runId, teamId: input.teamId, tool: input.tool, url: input.url, query: input.query, threatProtection: input.threatProtection, signal });
          } catch (err) {
            if (signal.aborted) throw err;
            // A tool that fails is a result the model can work around, not the run's failure.
            const message = err instanceof Error ? err.message : String(err);
            await saveAgentStep(deps.db, input.runId, input.step, input.tool, params, `Failed: ${message}`);
            return { credits: 0, summary: `failed: ${message}` };
          }
          const { plan } = await requireCredits(deps.db, input.teamId);
          const charge = { teamId: input.teamId, jobId: input.runId, chargeKey: `agent:${input.runId}:${input.step}`, reason: `agent:${input.tool}`, credits: outcome.credits };
          await chargeWith(deps.db, plan, charge, (trx) => saveAgentStep(trx, input.runId, input.step, input.tool, params, outcome.text));
          return { credits: outcome.credits, summary: outcome.summary };
        }),
      );
    },

    async recordAgentEvents(input: { runId: string; events: TraceEvent[] }): Promise<void> {
      await appendTraceEvents(deps.db, input.runId, input.events);
    },

    /** Completes a run with its result, or fails it and refunds it: failed runs are not billed. */
    async finishAgentRun(input: FinishAgentRunInput): Promise<void> {
      if (input.outcome === 'succeeded' && input.snapshotId) {
        await completeJobWithResult(deps.db, input.runId, { snapshotId: input.snapshotId });
        return;
      }
      await refundRun(deps.db, input.teamId, input.runId);
      // A cancelled run's row already says so (the API flipped it); finishJob never overwrites that.
      await finishJob(deps.db, input.runId, 'failed', { error: input.error ?? 'The agent run failed' });
    },
  };
}
