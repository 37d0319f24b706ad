/**
 * Browser sessions as the API sees them: a job of kind `browser` whose workflow
 * (workflows/browser-session.ts) holds the page. Starting one waits until its browser is open;
 * executes and stops are Updates of that workflow, answered when they are done.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Request, Response } from 'express';
import type { BrowserProfile } from '../../contracts/browser-profile.js';
import { findTeamBrowserSession, insertBrowserSession, type BrowserSession } from '../../db/repositories/browser-sessions.js';
import { countRunningJobs } from '../../db/repositories/jobs.js';
import { fromFailure, sessionLostError, TrawlError } from '../../lib/errors.js';
import { jobWorkflowId } from '../../lib/workflow-ids.js';
import type { ExecuteResult } from '../../activities/browser/execute.js';
import { browserSessionWorkflow, type BrowserSessionInput } from '../../workflows/browser-session.js';
import { executeInSessionUpdate, sessionReadyUpdate, stopSessionUpdate, type SessionExecuteRequest, type SessionOutcome } from '../../workflows/messages.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { isJobId } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { assertProfilesConfigured } from '../unsupported-options.js';
import { startJob } from '../job-start.js';
import { teamStandingOf } from '../team-plan.js';

export interface NewSession {
  ttlS: number;
  activityTtlS: number;
  profile?: BrowserProfile;
  scrapeId?: string;
  start?: BrowserSessionInput['start'];
  /** recordSession: keep replay frames. @default true */
  record?: boolean;
}

/** How long past its timeout an execute's answer may take before the API stops waiting. */
const EXECUTE_GRACE_MS = 40_000;

function sessionEnded(): TrawlError {
  return httpError('SESSION_ENDED', 'Browser session has been destroyed.');
}

/** Our error inside an Update's failure; a workflow that is gone means the session has ended. */
function updateError(err: unknown): unknown {
  if (err instanceof WorkflowNotFoundError) return sessionEnded();
  if (err instanceof WorkflowUpdateFailedError) return fromFailure(err) ?? sessionEnded();
  return fromFailure(err) ?? err;
}

export async function startSession(deps: AppDeps, req: Request, res: Response, session: NewSession): Promise<{ id: string; expiresAt: string }> {
  const { teamId, keyId } = authOf(res);
  assertProfilesConfigured(deps.features, session.profile);
  const { plan } = await teamStandingOf(deps.db, res);
  const { jobId, handle } = await startJob(deps, {
    kind: 'browser',
    request: req,
    teamId,
    apiKeyId: keyId,
    url: session.start?.url ?? null,
    options: { ttl: session.ttlS, activityTtl: session.activityTtlS, ...(session.profile && { profile: session.profile }) },
    workflow: browserSessionWorkflow,
    input: (sessionId) => ({
      sessionId,
      teamId,
      ttlMs: session.ttlS * 1000,
      activityTtlMs: session.activityTtlS * 1000,
      ...(session.profile && { profile: { name: session.profile.name, saveChanges: session.profile.saveChanges } }),
      ...(session.start && { start: session.start }),
      ...(session.record === false && { record: false }),
    }),
    beforeStart: (sessionId) =>
      insertBrowserSession(deps.db, {
        id: sessionId,
        teamId,
        scrapeId: session.scrapeId ?? null,
        ttlS: session.ttlS,
        activityTtlS: session.activityTtlS,
        profileName: session.profile?.name ?? null,
        saveChanges: session.profile?.saveChanges ?? false,
      }),
    admit: async () => {
      // Counted with this session's job row written (startJob's admit), so two requests at once
      // cannot both pass; a session's job ends in the transaction that ends the session.
      if ((await countRunningJobs(deps.db, teamId, 'browser')) > plan.concurrency) {
        throw httpError('CONCURRENCY_LIMITED', `Too many browser sessions at once: the team's plan allows ${plan.concurrency}; delete one first`);
      }
    },
    workflowExecutionTimeoutMs: session.ttlS * 1000 + 10 * 60_000,
  });
  const ready = await handle.executeUpdate(sessionReadyUpdate).catch((err: unknown) => {
    throw updateError(err);
  });
  if (!ready.ok) throw new TrawlError(ready.code as TrawlError['code'], ready.error);
  return { id: jobId, expiresAt: new Date(Date.now() + session.ttlS * 1000).toISOString() };
}

export async function requireSession(deps: AppDeps, res: Response, id: string): Promise<BrowserSession> {
  const session = isJobId(id) ? await findTeamBrowserSession(deps.db, authOf(res).teamId, id) : undefined;
  if (!session) throw httpError('NOT_FOUND', 'Browser session not found.');
  return session;
}

export async function executeInSession(deps: AppDeps, session: BrowserSession, request: SessionExecuteRequest): Promise<ExecuteResult> {
  if (session.status === 'lost') throw sessionLostError();
  if (session.status !== 'active') throw sessionEnded();
  const handle = deps.temporal.workflow.getHandle(jobWorkflowId('browser', session.id));
  try {
    return await deps.temporal.connection.withDeadline(Date.now() + request.timeoutMs + EXECUTE_GRACE_MS, () =>
      handle.executeUpdate(executeInSessionUpdate, { args: [request] }),
    );
  } catch (err) {
    throw updateError(err);
  }
}

/** Ends the session and answers with what it cost; a session that had ended already answers with its record. */
export async function stopSession(deps: AppDeps, session: BrowserSession): Promise<Pick<SessionOutcome, 'durationMs' | 'credits'>> {
  if (session.status === 'active') {
    try {
      return await deps.temporal.workflow.getHandle(jobWorkflowId('browser', session.id)).executeUpdate(stopSessionUpdate);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) && !(err instanceof WorkflowUpdateFailedError)) throw err;
    }
  }
  const ended = (await findTeamBrowserSession(deps.db, session.team_id, session.id)) ?? session;
  return { durationMs: Number(ended.duration_ms ?? 0), credits: ended.credits_billed ?? 0 };
}

/** The execute response, Firecrawl's shape: `error` carries stderr when the code failed. */
export function executeView(result: ExecuteResult): Record<string, unknown> {
  const failed = result.exitCode !== 0 || result.killed;
  return {
    ...(result.output !== undefined && { output: result.output }),
    stdout: result.stdout,
    ...(result.result !== undefined && { result: result.result }),
    stderr: result.stderr,
    exitCode: result.exitCode,
    killed: result.killed,
    ...(result.truncated && { truncated: true }),
    ...(failed && { error: result.stderr || 'Execution failed' }),
  };
}

export function sessionView(session: BrowserSession): Record<string, unknown> {
  return {
    id: session.id,
    status: session.status,
    // No live view or CDP endpoint: see the README (a raw CDP socket would hand a tenant the browser).
    streamWebView: false,
    createdAt: session.created_at.toISOString(),
    lastActivity: session.last_activity_at.toISOString(),
    expiresAt: new Date(session.created_at.getTime() + session.ttl_s * 1000).toISOString(),
    ...(session.scrape_id && { scrapeId: session.scrape_id }),
    ...(session.profile_name && { profile: session.profile_name }),
    ...(session.ended_at && { endedAt: session.ended_at.toISOString(), endReason: session.end_reason }),
    ...(session.duration_ms !== null && { sessionDurationMs: Number(session.duration_ms) }),
    ...(session.credits_billed !== null && { creditsBilled: session.credits_billed }),
  };
}
