/**
 * /v2/agent: start a run (workflows/agent.ts), read it, list runs, cancel, and read its trace and
 * snapshots, with the seed's error texts. Cancelled runs read as `failed` with a cancellation
 * message, as the seed's states table says.
 */
import { Router, type RequestHandler } from 'express';
import { notDoneWarnings } from '../../contracts/cloud-only.js';
import { findSnapshot, listTeamAgentRuns, listTraceEvents, readRunCredits } from '../../db/repositories/agent-runs.js';
import { createThread, lastTurnOptions, takeTurn } from '../../db/repositories/agent-threads.js';
import { countRunningJobs, finishJob } from '../../db/repositories/jobs.js';
import type { Job } from '../../db/schema.js';
import { TrawlError } from '../../lib/errors.js';
import { agentWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { startJob } from '../job-start.js';
import { isJobId, requireTeamJob, webhookFailureViews } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { validatedBody } from '../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { teamStandingOf } from '../team-plan.js';
import { assertJsonSchema, assertModelConfigured } from '../unsupported-options.js';
import { agentRequestSchema, STEPS_BY_EFFORT, type AgentRequest } from './schemas.js';

const PAGE_SIZE = 20;
const CANCELLED = 'The agent run was cancelled';

export function agentRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(agentRequestSchema);
  const read = guard(deps, 'agent', 'crawl-status');
  router.post('/v2/agent', ...guard(deps, 'agent', 'agent'), body, requireCredits(deps), startAgent(deps, body));
  router.get('/v2/agent', ...read, listAgents(deps));
  router.get('/v2/agent/:id', ...read, async (req, res) => {
    const job = await agentJob(deps, res, String(req.params.id));
    const [creditsUsed, webhookFailures] = await Promise.all([readRunCredits(deps.db, job.id), webhookFailureViews(deps.db, job.id)]);
    const data = job.status === 'completed' ? await snapshotOf(deps, job) : undefined;
    const chat = (job.options as { mode?: string }).mode === 'chat';
    res.json({
      success: true,
      status: statusOf(job),
      // A chat run answers in `message`, an extract run in `data`.
      ...(data !== undefined && (chat ? { message: data } : { data })),
      mode: chat ? 'chat' : 'extract',
      ...(job.thread_id && { threadId: job.thread_id, threadTurn: job.thread_turn }),
      ...(job.status === 'failed' && { error: job.error ?? 'The agent run failed' }),
      ...(job.status === 'cancelled' && { error: CANCELLED }),
      model: 'spark-2',
      expiresAt: job.expires_at.toISOString(),
      creditsUsed,
      // Trawl's own addition, as on a crawl's /errors.
      ...(webhookFailures.length > 0 && { webhookFailures }),
    });
  });
  router.delete('/v2/agent/:id', ...read, async (req, res) => {
    const job = await agentJob(deps, res, String(req.params.id));
    if (job.status === 'cancelled') throw httpError('CONFLICT', 'Agent is already cancelled');
    if (job.status !== 'scraping' || !(await finishJob(deps.db, job.id, 'cancelled', { error: CANCELLED }))) {
      throw httpError('CONFLICT', job.status === 'scraping' ? 'Agent is already cancelled' : 'Agent already finished');
    }
    await deps.temporal.workflow
      .getHandle(job.workflow_id)
      .cancel()
      .catch((err: unknown) => deps.log.warn({ err, jobId: job.id, workflowId: job.workflow_id, teamId: job.team_id }, 'agent: workflow not cancellable'));
    deps.log.info({ jobId: job.id, workflowId: job.workflow_id, teamId: job.team_id }, 'job: cancelled');
    res.json({ success: true });
  });
  router.get('/v2/agent/:id/trace', ...read, async (req, res) => {
    const job = await spark2Job(deps, res, String(req.params.id), 'Trace is only available for Spark 2 extracts');
    const [events, creditsUsed] = await Promise.all([listTraceEvents(deps.db, job.id), readRunCredits(deps.db, job.id)]);
    res.json({ success: true, id: job.id, events: events.map((e) => ({ ...e.payload, occurredAt: e.occurred_at.toISOString() })), creditsUsed });
  });
  router.get('/v2/agent/:id/snapshots/:snapshotId', ...read, async (req, res) => {
    const snapshotId = String(req.params.snapshotId);
    const job = await spark2Job(deps, res, String(req.params.id), 'Snapshots are only available for Spark 2 extracts');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(snapshotId)) throw httpError('BAD_REQUEST', 'Invalid snapshot ID');
    const snapshot = await findSnapshot(deps.db, job.id, snapshotId);
    if (!snapshot) throw httpError('NOT_FOUND', 'Snapshot not found');
    res.json({ success: true, id: job.id, snapshotId, snapshot: JSON.stringify(snapshot.content) });
  });
  return router;
}

function startAgent(deps: AppDeps, validated: ReturnType<typeof validatedBody<typeof agentRequestSchema>>): RequestHandler {
  return async (req, res) => {
    const given = validated.of(res);
    const { teamId, keyId } = authOf(res);
    // Every run is a turn of a thread: a new one's first, or the next of the thread it names.
    const previous = given.threadId ? await lastTurnOptions(deps.db, teamId, given.threadId) : null;
    if (previous === undefined) throw httpError('NOT_FOUND', 'Thread not found');
    const body = followUp(given, previous, req.body);
    if ((await teamStandingOf(deps.db, res)).plan.zeroDataRetention) {
      throw httpError('BAD_REQUEST', 'Your team has zero data retention enabled. This is not supported on extract.');
    }
    await assertThreatOverrideAllowed(deps.db, teamId, body.threatProtection);
    assertModelConfigured(deps.features, 'An agent run', 'prompt');
    assertJsonSchema(body.schema, 'schema');
    const { origin: _o, integration: _i, ...options } = body;
    const { plan } = await teamStandingOf(deps.db, res);
    const threadId = body.threadId ?? (await createThread(deps.db, teamId));
    let turn = 0;
    try {
      const { jobId } = await startJob(deps, {
        kind: 'agent',
        request: req,
        teamId,
        apiKeyId: keyId,
        url: body.urls?.[0] ?? null,
        options,
        threadId,
        workflow: agentWorkflow,
        admit: async (runId) => {
          const running = await countRunningJobs(deps.db, teamId, 'agent');
          if (running > plan.agentConcurrency) {
            throw httpError('CONCURRENCY_LIMITED', `Too many agent runs at once: the team's plan allows ${plan.agentConcurrency}; wait for one to finish`);
          }
          const taken = await takeTurn(deps.db, threadId, runId);
          if ('busy' in taken) throw httpError('CONFLICT', 'The thread has a run in progress: send the next turn when it has finished');
          turn = taken.turn;
        },
        input: (runId) => ({
          runId,
          teamId,
          prompt: body.prompt,
          // A chat run's answer is its text reply, checked like any answer.
          schema: body.mode === 'chat' ? { type: 'string' } : body.schema,
          thread: { id: threadId, turn },
          urls: body.urls ?? [],
          strictConstrainToURLs: body.strictConstrainToURLs,
          maxCredits: body.maxCredits,
          maxSteps: STEPS_BY_EFFORT[body.effort],
          threatProtection: body.threatProtection,
          webhook: body.webhook,
        }),
      });
      const warning = notDoneWarnings('agent', body);
      res.json({ success: true, id: jobId, threadId, threadTurn: turn, ...(warning && { warning }) });
    } catch (err) {
      // startJob failed the row; the seed's wording for a run that could not be submitted.
      if (err instanceof TrawlError && err.code === 'SERVICE_UNAVAILABLE') throw httpError('AGENT_START_FAILED', 'Failed to passthrough agent request.');
      throw err;
    }
  };
}

/**
 * A follow-up turn, as Firecrawl's: the mode, urls and schema the request leaves out are the
 * previous turn's (the raw body tells which it stated: after parsing, mode always has a value).
 */
function followUp(body: AgentRequest, previous: Record<string, unknown> | null, raw: unknown): AgentRequest {
  if (!previous) return body;
  const stated = new Set(Object.keys(raw && typeof raw === 'object' ? raw : {}));
  const inherited = Object.fromEntries((['mode', 'urls', 'schema'] as const).filter((k) => !stated.has(k) && previous[k] !== undefined).map((k) => [k, previous[k]]));
  const turn = { ...body, ...inherited } as AgentRequest;
  if (turn.mode === 'chat' && turn.schema) throw httpError('BAD_REQUEST', 'Bad Request: schema: a chat run answers in text: schema cannot be combined with mode "chat"', { option: 'schema' });
  return turn;
}

function listAgents(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const before = Number(req.query.before);
    if (req.query.before !== undefined && !Number.isFinite(before)) throw httpError('BAD_REQUEST', 'before must be a unix timestamp in milliseconds');
    const rows = await listTeamAgentRuns(deps.db, authOf(res).teamId, {
      limit: PAGE_SIZE + 1,
      ...(req.query.before !== undefined && { before: new Date(before) }),
    });
    const page = rows.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    res.json({
      success: true,
      agents: page.map((job) => {
        const options = job.options as { prompt?: string; urls?: string[]; schema?: unknown };
        return {
          id: job.id,
          createdAt: job.created_at.toISOString(),
          targetHint: options.urls?.[0] ?? '',
          origin: 'api',
          settings: { hidden: false, starred: false },
          status: statusOf(job),
          options: { prompt: options.prompt ?? '', urls: options.urls, schema: options.schema },
        };
      }),
      ...(rows.length > PAGE_SIZE && last && { next: `${publicBaseUrl(req, deps.config)}/v2/agent?before=${last.created_at.getTime()}` }),
    });
  };
}

function statusOf(job: Job): 'processing' | 'completed' | 'failed' {
  if (job.status === 'scraping') return 'processing';
  return job.status === 'completed' ? 'completed' : 'failed';
}

async function snapshotOf(deps: AppDeps, job: Job): Promise<unknown> {
  const snapshotId = (job.result as { snapshotId?: string } | null)?.snapshotId;
  return snapshotId ? (await findSnapshot(deps.db, job.id, snapshotId))?.content : undefined;
}

async function agentJob(deps: AppDeps, res: Parameters<RequestHandler>[1], id: string): Promise<Job> {
  const job = await runOrExtract(deps, res, id);
  if (job.kind !== 'agent') throw httpError('JOB_NOT_FOUND', 'Agent job not found');
  return job;
}

/** The run, or the seed's 400 for an extract job's id (extract is the generation before spark-2). */
async function spark2Job(deps: AppDeps, res: Parameters<RequestHandler>[1], id: string, olderGeneration: string): Promise<Job> {
  const job = await runOrExtract(deps, res, id);
  if (job.kind === 'extract') throw httpError('BAD_REQUEST', olderGeneration);
  return job;
}

/** One read for either kind, with the seed's texts for a malformed or unknown id. */
async function runOrExtract(deps: AppDeps, res: Parameters<RequestHandler>[1], id: string): Promise<Job> {
  if (!isJobId(id)) throw httpError('BAD_REQUEST', 'Invalid job ID format. Job ID must be a valid UUID.');
  try {
    return await requireTeamJob(deps.db, authOf(res).teamId, id, ['agent', 'extract']);
  } catch (err) {
    if (err instanceof TrawlError && err.code === 'JOB_NOT_FOUND') throw httpError('JOB_NOT_FOUND', 'Agent job not found');
    throw err;
  }
}
