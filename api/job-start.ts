/**
 * What every asynchronous job start shares: the idempotency key, the job row written before the
 * response (so a status read right after never 404s), and the workflow start with its search
 * attributes. A start that fails leaves a failed job, not a phantom running one.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { findJobByIdempotencyKey, insertJob, setJobStatus } from '../db/repositories/jobs.js';
import type { JobKind } from '../db/schema.js';
import { JobKindAttribute, TeamIdAttribute } from '../workflows/search-attributes.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';

const idempotencyKeySchema = z.uuid();

/** Reads `x-idempotency-key`; a reused key is a 409 before anything is created. */
export async function checkIdempotencyKey(deps: AppDeps, req: Request, teamId: string): Promise<string | null> {
  const raw = req.get('x-idempotency-key');
  if (raw === undefined || raw === '') return null;
  if (!idempotencyKeySchema.safeParse(raw).success) {
    throw httpError('BAD_REQUEST', 'Bad Request: x-idempotency-key must be a UUID');
  }
  if (await findJobByIdempotencyKey(deps.db, teamId, raw)) {
    throw httpError('CONFLICT', 'Idempotency key already used');
  }
  return raw;
}

export interface NewJobRow {
  jobId: string;
  teamId: string;
  kind: JobKind;
  url: string | null;
  options: Record<string, unknown>;
  workflowId: string;
  idempotencyKey: string | null;
  /** The key that started the job; null with AUTH=none. */
  apiKeyId: string | null;
  /** Known at start, e.g. a limit lowered to the credits left. */
  warning?: string;
}

/** `relaxed`: see insertJob; only for a job whose response waits for its result. */
export async function insertRunningJob(
  deps: AppDeps,
  job: NewJobRow,
  options: { relaxed?: boolean } = {},
): Promise<void> {
  try {
    await insertJob(
      deps.db,
      {
        id: job.jobId,
        team_id: job.teamId,
        kind: job.kind,
        status: 'scraping',
        url: job.url,
        options: JSON.stringify(job.options),
        workflow_id: job.workflowId,
        idempotency_key: job.idempotencyKey,
        api_key_id: job.apiKeyId,
        warning: job.warning ?? null,
        updated_at: new Date(),
        expires_at: new Date(Date.now() + deps.config.results.retentionHours * 3_600_000),
      },
      options,
    );
  } catch (err) {
    // 23505: unique_violation on (team, idempotency key): two requests raced with one key.
    if ((err as { code?: string }).code === '23505') throw httpError('CONFLICT', 'Idempotency key already used');
    throw err;
  }
}

export function jobSearchAttributes(teamId: string, kind: JobKind) {
  return [
    { key: TeamIdAttribute, value: teamId },
    { key: JobKindAttribute, value: kind },
  ];
}

/** Runs the workflow start; if Temporal refuses it, the job is marked failed and the error rethrown. */
export async function startOrFail(deps: AppDeps, jobId: string, start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    await setJobStatus(deps.db, jobId, 'failed', err instanceof Error ? err.message : String(err));
    throw httpError('SERVICE_UNAVAILABLE', 'Service Unavailable: the job could not be started, try again');
  }
}
