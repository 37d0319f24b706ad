/**
 * GET /v2/agent/threads/{id}: an agent thread and its runs in turn order, in the SDK's
 * AgentThread shape (`getAgentThread`). A run's answer is included with `includeData=true`;
 * a chat run's answer is its `message` either way.
 *
 * Threads are rows in Postgres, and each turn is an ordinary agent run (its own workflow, trace,
 * credits and cancel) whose decisions read the earlier turns' prompts and answers from there
 * (activities/agent/run.ts). A long-lived workflow per thread taking turns as Updates would hold
 * nothing the database does not already hold, and would sit idle for the days between turns.
 */
import { Router } from 'express';
import { z } from 'zod';
import { readThread, type ThreadRun } from '../../db/repositories/agent-threads.js';
import { readRunCredits } from '../../db/repositories/agent-runs.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { isJobId } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { parseQuery } from '../middleware/validate.js';

export const threadQuerySchema = z.object({
  includeData: z.enum(['true', 'false']).optional().describe("true includes each extract run's `data`"),
});

const RUN_STATUS = { scraping: 'processing', completed: 'succeeded', failed: 'failed', cancelled: 'cancelled' } as const;

export function agentThreadRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/v2/agent/threads/:id', ...guard(deps, 'agent', 'crawl-status'), async (req, res) => {
    const id = String(req.params.id);
    if (!isJobId(id)) throw httpError('BAD_REQUEST', 'Invalid thread ID format. Thread ID must be a valid UUID.');
    const includeData = parseQuery(threadQuerySchema, req).includeData === 'true';
    const thread = await readThread(deps.db, authOf(res).teamId, id);
    if (!thread) throw httpError('NOT_FOUND', 'Thread not found');
    const runs = await Promise.all(thread.runs.map(async (run) => runView(run, await readRunCredits(deps.db, run.id), includeData)));
    res.json({
      success: true,
      thread: {
        id: thread.id,
        createdAt: thread.createdAt.toISOString(),
        updatedAt: thread.updatedAt.toISOString(),
        status: thread.runs.some((r) => r.status === 'scraping') ? 'running' : 'idle',
        runs,
      },
    });
  });
  return router;
}

function runView(run: ThreadRun, creditsUsed: number, includeData: boolean) {
  const options = run.options as { mode?: 'extract' | 'chat'; prompt?: string; urls?: string[]; schema?: unknown; effort?: string };
  const chat = options.mode === 'chat';
  return {
    id: run.id,
    turn: run.turn,
    mode: chat ? 'chat' : 'extract',
    prompt: options.prompt ?? '',
    ...(options.urls && { urls: options.urls }),
    ...(options.schema !== undefined && { schema: options.schema }),
    ...(options.effort && { effort: options.effort }),
    status: RUN_STATUS[run.status],
    createdAt: run.createdAt.toISOString(),
    finishedAt: run.completedAt?.toISOString() ?? null,
    // Failed runs are refunded, as the run's own status reports.
    creditsUsed: run.status === 'completed' ? creditsUsed : 0,
    message: chat && typeof run.answer === 'string' ? run.answer : null,
    ...(includeData && !chat && run.answer !== undefined && { data: run.answer }),
  };
}
