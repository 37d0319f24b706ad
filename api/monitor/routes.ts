/**
 * Monitors (Firecrawl's /v2/monitor): scheduled re-scrapes and re-crawls with change detection.
 * Each monitor is a Temporal Schedule (api/monitor/schedules.ts) that starts a check workflow
 * (workflows/monitor-check.ts); the check runs its targets as ordinary batch-scrape and crawl jobs
 * and records, per page, same / new / changed / removed / error.
 */
import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import {
  deleteMonitor,
  findCheck,
  findTeamMonitor,
  insertMonitor,
  insertQueuedCheck,
  listCheckPages,
  listChecks,
  listTeamMonitors,
  updateMonitor,
  type MonitorRow,
} from '../../db/repositories/monitors.js';
import { setCheckFailed } from '../../db/repositories/monitors.js';
import { creditsPerCheck, type StoredTarget } from '../../lib/monitor/plan.js';
import type { ResolvedSchedule } from '../../lib/monitor/schedule.js';
import type { MonitorCheckWorkflowInput } from '../../workflows/monitor-check.js';
import { monitorCheckWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { keyAllows, type Scope } from '../auth/api-keys.js';
import type { TeamPlan } from '../../lib/plans.js';
import { teamStandingOf } from '../team-plan.js';
import { isJobId, webhookFailureViews } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { parseQuery, validatedBody } from '../middleware/validate.js';
import {
  checkWorkflowOptions,
  createMonitorSchedule,
  deleteMonitorSchedule,
  updateMonitorSchedule,
} from './schedules.js';
import { manualCheckWorkflowId, monitorScheduleId } from '../../lib/workflow-ids.js';
import { assertNotificationSupported, estimatedCreditsPerMonth, scheduleOf, storedTargets } from './plan.js';
import { adaptiveView, checkPageView, checkView, monitorView } from './view.js';
import { publicBaseUrl } from '../public-url.js';
import {
  monitorCheckQuerySchema,
  monitorChecksQuerySchema,
  monitorCreateRequestSchema,
  monitorListQuerySchema,
  monitorUpdateRequestSchema,
  type MonitorWebhook,
} from './schemas.js';

export function monitorRoutes(deps: AppDeps): Router {
  const router = Router();
  const write = guard(deps, 'crawl', 'crawl');
  // Changing or stopping a monitor starts no work: it must not wait behind a burst of crawl starts.
  const change = guard(deps, 'crawl', 'crawl-status');
  const read = guard(deps, 'crawl', 'crawl-status');
  const createBody = validatedBody(monitorCreateRequestSchema);
  const updateBody = validatedBody(monitorUpdateRequestSchema);
  const llm = deps.features?.llmConfigured ?? false;

  router.post('/v2/monitor', ...write, createBody, async (req, res) => {
    const body = createBody.of(res);
    const { teamId } = authOf(res);
    assertNotificationSupported(body.notification, deps.features);
    const id = randomUUID();
    const schedule = scheduleOf(body.schedule);
    const targets = storedTargets(deps, id, body.targets);
    requireTargetScopes(res, targets);
    const { plan } = await teamStandingOf(deps.db, res);
    const estimate = estimatedCreditsPerMonth(schedule, targets);
    assertWithinPlan(plan, estimate);
    const stored = await insertMonitor(deps.db, {
      id,
      team_id: teamId,
      name: body.name,
      status: 'active',
      schedule: JSON.stringify(schedule),
      targets: JSON.stringify(targets),
      webhook: body.webhook ? JSON.stringify(internalWebhook(body.webhook)) : null,
      notification: body.notification ? JSON.stringify(body.notification) : null,
      retention_days: body.retentionDays,
      goal: body.goal ?? null,
      // Firecrawl: a goal turns judging on unless judgeEnabled says otherwise.
      judge_enabled: body.judgeEnabled ?? body.goal !== undefined,
      estimated_credits_per_month: estimate,
      schedule_id: monitorScheduleId(id),
      updated_at: new Date(),
    }, plan.monitors);
    if (!stored) {
      throw httpError('FORBIDDEN', `Forbidden: the team's plan allows at most ${plan.monitors} monitors; delete one, or ask the operator to raise the limit`);
    }
    try {
      await createMonitorSchedule(deps, { monitorId: id, teamId, cron: schedule.cron, timezone: schedule.timezone, paused: false });
    } catch (err) {
      await deleteMonitor(deps.db, id);
      throw err;
    }
    deps.log.info({ monitorId: id, teamId }, 'monitor: created');
    res.json({ success: true, data: monitorView((await findTeamMonitor(deps.db, teamId, id))!, llm) });
  });

  router.get('/v2/monitor', ...read, async (req, res) => {
    const query = parseQuery(monitorListQuerySchema, req);
    const rows = await listTeamMonitors(deps.db, authOf(res).teamId, { limit: query.limit + 1, offset: query.offset });
    res.json({
      success: true,
      data: rows.slice(0, query.limit).map((row) => monitorView(row, llm)),
      pagination: { limit: query.limit, offset: query.offset, hasMore: rows.length > query.limit },
    });
  });

  router.get('/v2/monitor/:id', ...read, async (req, res) => {
    const monitor = await requireMonitor(deps, req, res);
    const urls = await adaptiveView(deps.db, monitor);
    res.json({ success: true, data: { ...monitorView(monitor, llm), ...(urls && { adaptive: { urls } }) } });
  });

  router.patch('/v2/monitor/:id', ...change, updateBody, async (req, res) => {
    const monitor = await requireMonitor(deps, req, res);
    const body = updateBody.of(res);
    assertNotificationSupported(body.notification, deps.features);
    const schedule = body.schedule ? scheduleOf(body.schedule) : (monitor.schedule as unknown as ResolvedSchedule);
    const targets = body.targets ? storedTargets(deps, monitor.id, body.targets) : (monitor.targets as unknown as StoredTarget[]);
    const status = body.status ?? monitor.status;
    requireTargetScopes(res, targets);
    const estimate = estimatedCreditsPerMonth(schedule, targets);
    if (status === 'active') assertWithinPlan((await teamStandingOf(deps.db, res)).plan, estimate);
    const goal = body.goal === undefined ? monitor.goal : body.goal;
    const updated = await updateMonitor(deps.db, monitor.id, {
      ...(body.name !== undefined && { name: body.name }),
      status,
      schedule: JSON.stringify(schedule),
      targets: JSON.stringify(targets),
      ...(body.webhook !== undefined && { webhook: body.webhook === null ? null : JSON.stringify(internalWebhook(body.webhook)) }),
      ...(body.notification !== undefined && { notification: body.notification === null ? null : JSON.stringify(body.notification) }),
      ...(body.retentionDays !== undefined && { retention_days: body.retentionDays }),
      goal,
      judge_enabled: body.judgeEnabled ?? (body.goal !== undefined ? goal !== null : monitor.judge_enabled),
      estimated_credits_per_month: estimate,
    });
    await updateMonitorSchedule(deps, {
      monitorId: monitor.id,
      teamId: monitor.team_id,
      cron: schedule.cron,
      timezone: schedule.timezone,
      paused: status === 'paused',
    });
    res.json({ success: true, data: monitorView(updated!, llm) });
  });

  router.delete('/v2/monitor/:id', ...change, async (req, res) => {
    const monitor = await requireMonitor(deps, req, res);
    // The Schedule first: a monitor row without one is harmless, a Schedule without a row is not.
    await deleteMonitorSchedule(deps, monitor.id);
    await deleteMonitor(deps.db, monitor.id);
    deps.log.info({ monitorId: monitor.id }, 'monitor: deleted');
    res.json({ success: true, data: { id: monitor.id, status: 'deleted' } });
  });

  router.post('/v2/monitor/:id/run', ...write, async (req, res) => {
    const monitor = await requireMonitor(deps, req, res);
    requireTargetScopes(res, monitor.targets as unknown as StoredTarget[]);
    const checkId = randomUUID();
    const workflowId = manualCheckWorkflowId(monitor.id, checkId);
    const check = await insertQueuedCheck(deps.db, {
      id: checkId,
      monitorId: monitor.id,
      teamId: monitor.team_id,
      workflowId,
      estimatedCredits: creditsPerCheck((monitor.targets as unknown as StoredTarget[]).map((t) => t.plan)),
      expiresAt: checkExpiry(deps, monitor),
    });
    const input: MonitorCheckWorkflowInput = { monitorId: monitor.id, checkId, trigger: 'manual' };
    try {
      await deps.temporal.connection.withDeadline(Date.now() + 5_000, () =>
        deps.temporal.workflow.start(monitorCheckWorkflow, { workflowId, args: [input], ...checkWorkflowOptions(deps, monitor.team_id) }),
      );
    } catch (err) {
      await setCheckFailed(deps.db, checkId, err instanceof Error ? err.message : String(err));
      deps.log.warn({ err, monitorId: monitor.id, checkId }, 'monitor: check could not be started');
      throw httpError('SERVICE_UNAVAILABLE', 'Service Unavailable: the check could not be started, try again');
    }
    res.json({ success: true, data: checkView(check) });
  });

  router.get('/v2/monitor/:id/checks', ...read, async (req, res) => {
    const monitor = await requireMonitor(deps, req, res);
    const query = parseQuery(monitorChecksQuerySchema, req);
    const rows = await listChecks(deps.db, monitor.id, { limit: query.limit + 1, offset: query.offset, status: query.status });
    res.json({
      success: true,
      data: rows.slice(0, query.limit).map(checkView),
      pagination: { limit: query.limit, offset: query.offset, hasMore: rows.length > query.limit },
    });
  });

  router.get('/v2/monitor/:id/checks/:checkId', ...read, async (req, res) => {
    const monitor = await requireMonitor(deps, req, res);
    const checkId = String(req.params.checkId);
    const check = isJobId(checkId) ? await findCheck(deps.db, monitor.id, checkId) : undefined;
    if (!check) throw httpError('NOT_FOUND', 'Check not found');
    const query = parseQuery(monitorCheckQuerySchema, req);
    const [pages, webhookFailures] = await Promise.all([
      listCheckPages(deps.db, check.id, { limit: query.limit + 1, skip: query.skip, status: query.status }),
      webhookFailureViews(deps.db, check.id, { monitorCheck: true }),
    ]);
    const more = pages.length > query.limit;
    const next = more ? nextUrl(deps, req, query.skip + query.limit) : null;
    const data = { ...checkView(check), pages: pages.slice(0, query.limit).map(checkPageView), next, ...(webhookFailures.length > 0 && { webhookFailures }) };
    res.json({ success: true, data, next });
  });

  return router;
}

/** A monitor runs its targets as the key's own requests would: each kind needs its scope. */
function requireTargetScopes(res: Response, targets: readonly StoredTarget[]): void {
  const { scopes } = authOf(res);
  for (const { plan } of targets) {
    const scope = TARGET_SCOPE[plan.kind];
    if (!keyAllows(scopes, scope)) throw httpError('FORBIDDEN', `Forbidden: this API key may not use ${scope} endpoints, which this monitor's ${scope} target runs`);
  }
}

const TARGET_SCOPE = { batch_scrape: 'scrape', crawl: 'crawl', search: 'search' } as const satisfies Record<StoredTarget['plan']['kind'], Scope>;

/** A monitor whose checks alone would spend more than the plan's month is refused, as Firecrawl refuses work it cannot pay for. */
function assertWithinPlan(plan: TeamPlan, estimatedCreditsPerMonth: number): void {
  if (estimatedCreditsPerMonth <= plan.monthlyCredits) return;
  throw httpError(
    'INSUFFICIENT_CREDITS',
    `Payment Required: Insufficient credits. This monitor would use about ${estimatedCreditsPerMonth} credits a month, more than the team's plan of ${plan.monthlyCredits}; check less often or fewer pages`,
    { estimatedCreditsPerMonth, monthlyCredits: plan.monthlyCredits },
  );
}

async function requireMonitor(deps: AppDeps, req: Request, res: Response): Promise<MonitorRow> {
  const id = String(req.params.id);
  // Another team's monitor answers exactly like a missing one.
  const monitor = isJobId(id) ? await findTeamMonitor(deps.db, authOf(res).teamId, id) : undefined;
  if (!monitor) throw httpError('NOT_FOUND', 'Monitor not found');
  return monitor;
}

function nextUrl(deps: AppDeps, req: Request, skip: number): string {
  const url = new URL(`${publicBaseUrl(req, deps.config)}${req.path}`);
  for (const [key, value] of Object.entries(req.query)) if (typeof value === 'string' && key !== 'skip') url.searchParams.set(key, value);
  url.searchParams.set('skip', String(skip));
  return url.toString();
}

/** Stored with the internal event names WebhookFanout filters on ('page', 'completed'). */
function internalWebhook(webhook: MonitorWebhook) {
  return { ...webhook, events: webhook.events.map((e) => (e === 'monitor.page' ? 'page' : 'completed')) };
}

/** A check is kept for the monitor's retentionDays, and never longer than results are. */
export function checkExpiry(deps: Pick<AppDeps, 'config'>, monitor: Pick<MonitorRow, 'retention_days'>): Date {
  const hours = Math.min(monitor.retention_days * 24, deps.config.results.retentionHours);
  return new Date(Date.now() + hours * 3_600_000);
}
