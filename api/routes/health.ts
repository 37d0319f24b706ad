import { Router } from 'express';
import protos from '@temporalio/proto';
import { pingDatabase } from '../../db/repositories/service-stats.js';
import type { AppDeps } from '../deps.js';

/** A worker counts as alive while its pollers have been seen this recently (long polls last ≤ 70 s). */
const WORKER_SEEN_WITHIN_MS = 75_000;
const CHECK_TIMEOUT_MS = 3_000;

type Check = { ok: true } | { ok: false; error: string };

export interface HealthReport {
  success: boolean;
  status: 'ok' | 'unavailable';
  error?: string;
  checks: { database: Check; temporal: Check; workers: Check };
  model: { configured: boolean; name?: string } & Check;
  search: { provider: 'index' | 'searxng'; endpoint?: string };
}

/** What GET /health answers, also shown by the dashboard's health page. */
export async function readHealth(deps: AppDeps): Promise<HealthReport> {
  const [database, temporal, workers] = await Promise.all([
    check(() => pingDatabase(deps.db)),
    check(() => deps.temporal.workflowService.getSystemInfo({})),
    check(() => assertWorkerPolling(deps)),
  ]);
  const checks = { database, temporal, workers };
  // Reported, but not part of the verdict: scraping and crawling work without a model.
  const model = deps.model
    ? { configured: true, name: deps.model.model, ...(await check(() => deps.model!.ping())) }
    : { configured: false, ok: false as const, error: 'No model configured: set OPENAI_API_KEY/OPENAI_BASE_URL or OLLAMA_BASE_URL' };
  const down = Object.entries(checks)
    .filter(([, c]) => !c.ok)
    .map(([name]) => name);
  const { provider, searxngEndpoint } = deps.config.search;
  return {
    success: down.length === 0,
    status: down.length ? 'unavailable' : 'ok',
    ...(down.length && { error: `Service Unavailable: ${down.join(', ')} down` }),
    checks,
    model,
    // Which provider /search uses; the index lives in Postgres, so the database check covers it.
    search: { provider, ...(searxngEndpoint && { endpoint: searxngEndpoint }) },
  };
}

export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const report = await readHealth(deps);
    res.status(report.success ? 200 : 503).json(report);
  });
  return router;
}

async function assertWorkerPolling(deps: AppDeps): Promise<void> {
  const { pollers } = await deps.temporal.workflowService.describeTaskQueue({
    namespace: deps.config.temporal.namespace,
    taskQueue: { name: deps.config.temporal.taskQueue },
    taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const now = Date.now();
  const alive = (pollers ?? []).some((p) => {
    const seconds = Number(p.lastAccessTime?.seconds ?? 0);
    return now - seconds * 1000 < WORKER_SEEN_WITHIN_MS;
  });
  if (!alive) throw new Error(`no worker is polling task queue ${deps.config.temporal.taskQueue}`);
}

async function check(probe: () => Promise<unknown>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
