/**
 * Monitors, checks and check pages as Firecrawl's v2 API shapes them (Monitor, MonitorCheck,
 * MonitorCheckPage in its OpenAPI document), from their rows.
 */
import type { Db } from '../../db/connect.js';
import { monitorPageHistory, type MonitorCheckRow, type MonitorRow } from '../../db/repositories/monitors.js';
import type { MonitorCheckPageTable } from '../../db/schema.js';
import { targetCadences, type PageHistoryRow } from '../../lib/monitor/adaptive.js';
import { nextRunAt, type ResolvedSchedule } from '../../lib/monitor/schedule.js';
import type { StoredTarget } from '../../lib/monitor/plan.js';
import type { Selectable } from 'kysely';

/** Said on every monitor with a goal that no model will judge. */
export const NOT_JUDGED_WARNING = 'No language model is configured: the goal is stored, but changes are not judged against it.';

const EVENT_NAMES: Record<string, string> = { page: 'monitor.page', completed: 'monitor.check.completed' };

export function monitorView(row: MonitorRow, llmConfigured: boolean): Record<string, unknown> {
  const schedule = row.schedule as unknown as ResolvedSchedule;
  const webhook = row.webhook as { url: string; headers: Record<string, string>; metadata: Record<string, unknown>; events: string[] } | null;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    schedule: { cron: schedule.cron, timezone: schedule.timezone, ...(schedule.text !== undefined && { text: schedule.text }), ...(schedule.adaptive && { adaptive: schedule.adaptive }) },
    nextRunAt: row.status === 'active' ? (nextRunAt(schedule)?.toISOString() ?? null) : null,
    lastRunAt: row.last_run_at?.toISOString() ?? null,
    currentCheckId: row.current_check_id,
    targets: (row.targets as unknown as StoredTarget[]).map((t) => t.target),
    webhook: webhook && { ...webhook, events: webhook.events.map((e) => EVENT_NAMES[e] ?? e) },
    notification: row.notification,
    retentionDays: row.retention_days,
    estimatedCreditsPerMonth: row.estimated_credits_per_month,
    lastCheckSummary: row.last_check_summary,
    goal: row.goal,
    judgeEnabled: row.judge_enabled && llmConfigured,
    ...(row.goal !== null && !llmConfigured && { warning: NOT_JUDGED_WARNING }),
    scheduleId: row.schedule_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * An adaptive monitor's pace per URL of its scrape targets (lib/monitor/adaptive.ts): the interval
 * the evidence calls for, the evidence, and whether the next check fetches it.
 */
export async function adaptiveView(db: Db, row: MonitorRow): Promise<Record<string, unknown>[] | undefined> {
  const { adaptive } = row.schedule as unknown as ResolvedSchedule;
  // Only an adaptive monitor's reads pay for its history.
  if (!adaptive) return undefined;
  const history: { currentTick: number; pages: PageHistoryRow[] } = await monitorPageHistory(db, row.id);
  return (row.targets as unknown as StoredTarget[]).flatMap(({ target, plan }) => {
    if (plan.kind !== 'batch_scrape') return [];
    const next = history.currentTick + 1;
    const cadences = targetCadences(target.id, plan.pages.map((p) => p.urlKey), history.pages, next, adaptive);
    return plan.pages.map((page) => {
      const { due, nextCheckTick: _next, ...cadence } = cadences.get(page.urlKey)!;
      return { targetId: target.id, url: page.url, dueAtNextCheck: due, ...cadence };
    });
  });
}

export function checkView(row: MonitorCheckRow): Record<string, unknown> {
  const finished = row.finished_at !== null;
  return {
    id: row.id,
    monitorId: row.monitor_id,
    status: row.status,
    trigger: row.trigger,
    scheduledFor: row.scheduled_for?.toISOString() ?? null,
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    estimatedCredits: row.estimated_credits,
    reservedCredits: null,
    actualCredits: row.actual_credits,
    // Trawl charges each page as it is stored (the ledger), never a reservation up front.
    billingStatus: finished && (row.actual_credits ?? 0) > 0 ? 'confirmed' : 'not_applicable',
    summary: row.summary,
    targetResults: row.target_results,
    judged: row.judged,
    notificationStatus: null,
    error: row.error,
    workflowId: row.workflow_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function checkPageView(row: Selectable<MonitorCheckPageTable>): Record<string, unknown> {
  return {
    id: row.id,
    targetId: row.target_id,
    url: row.url,
    status: row.status,
    previousScrapeId: row.previous_scrape_id,
    currentScrapeId: row.current_scrape_id,
    statusCode: row.status_code,
    error: row.error,
    diff: row.diff,
    judgment: row.judgment,
    createdAt: row.created_at.toISOString(),
  };
}
