/**
 * The activities of a monitor's check (workflows/monitor-check.ts):
 *
 * - beginMonitorCheck decides whether the check runs (db/repositories/monitors.ts beginCheck:
 *   skipped_overlap, skipped_no_credits) and creates one page job per target: a batch scrape for a
 *   scrape target, a crawl for a crawl target, with the monitor's change tracking. The workflow
 *   runs them as child workflows: the same page loop, credits, concurrency and storage as any job.
 * - finishMonitorCheck reads what those jobs stored, turns it into the check's pages (same, new,
 *   changed, removed, error), judges changes against the goal when a model is configured, and
 *   ends the check.
 */
import { randomUUID } from 'node:crypto';
import { log } from '@temporalio/activity';
import type { WebhookConfig } from '../../contracts/webhook.js';
import { findDocument } from '../../db/repositories/documents.js';
import { insertJob } from '../../db/repositories/jobs.js';
import { addBatchPages } from '../../db/repositories/batch.js';
import {
  abandonCheck,
  beginCheck,
  checkJobPages,
  finishCheck,
  insertCheckPages,
  previousCheckPages,
  setCheckTargets,
  findMonitor,
  listCheckEventPageIds,
  monitorPageHistory,
  type CheckPage,
  type MonitorSummary,
} from '../../db/repositories/monitors.js';
import { readTeamStanding } from '../../db/repositories/usage.js';
import type { MonitorCheckStatus } from '../../db/schema.js';
import { creditsLeft } from '../../lib/credits.js';
import { targetCadences } from '../../lib/monitor/adaptive.js';
import type { ResolvedSchedule } from '../../lib/monitor/schedule.js';
import { comparePages, summarize, type ComparedPage } from '../../lib/monitor/check-pages.js';
import { creditsPerCheck, emailNotificationOf, type SearchPlan, type StoredTarget } from '../../lib/monitor/plan.js';
import { resolvePlan } from '../../lib/plans.js';
import { judgeChange, type MonitorJudgment } from '../../llm/monitor-judge.js';
import type { ChangeDetection } from '../../contracts/change-detection.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import type { CrawlerSettings } from '../../lib/crawl/settings.js';
import type { ActivityDeps } from '../deps.js';
import { modelFor } from '../page/enrich/model.js';
import { jobIdFor } from './ids.js';
import type { MonitorSearchResult } from './search-target.js';
import { jobWorkflowId } from '../../lib/workflow-ids.js';

export interface BeginMonitorCheckInput {
  monitorId: string;
  checkId: string;
  trigger: 'scheduled' | 'manual';
  workflowId: string;
  /** Epoch ms the Schedule meant the check for. */
  scheduledFor?: number;
}

export interface CheckJob {
  targetId: string;
  type: 'scrape' | 'crawl';
  jobId: string;
  workflowId: string;
  /** The child job's workflow input (a PageJobInput of workflows/page-job-run.ts). */
  input: {
    jobId: string;
    teamId: string;
    kind: 'crawl' | 'batch_scrape';
    scrapeOptions: ScrapeOptions;
    crawler?: CrawlerSettings;
    maxConcurrency?: number;
    delaySecs?: number;
    changeDetection: ChangeDetection;
  };
}

export interface BeginMonitorCheckResult {
  /** `deleted`: the monitor is gone (a Schedule start that raced its deletion). */
  status: MonitorCheckStatus | 'deleted';
  teamId?: string;
  webhook?: WebhookConfig;
  jobs: CheckJob[];
  /** Search targets: no job, one runMonitorSearch each (activities/monitor/search-target.ts). */
  searches: { targetId: string; plan: SearchPlan }[];
  /** The monitor notifies by email (activities/monitor/email.ts). */
  email?: boolean;
}

export interface FinishMonitorCheckInput {
  monitorId: string;
  checkId: string;
  teamId: string;
  targets: { targetId: string; type: 'scrape' | 'crawl'; jobId: string; error?: string }[];
  searches: (MonitorSearchResult | { targetId: string; error: string })[];
}

export interface FinishMonitorCheckResult {
  status: MonitorCheckStatus;
  summary: MonitorSummary;
  actualCredits: number;
  /** Check pages that are not `same`, for monitor.page webhooks (at most MAX_PAGE_EVENTS). */
  eventPageIds: string[];
  error: string | null;
}

/** monitor.page events per check; a crawl of thousands of changed pages sends the first ones and the summary. */
const MAX_PAGE_EVENTS = 1000;
/** Changes judged per check: each is one model call. */
const MAX_JUDGED = 50;
const RESULT_RETENTION_HOURS_DEFAULT = 720;


export function createMonitorCheckActivities(deps: ActivityDeps) {
  return {
    async beginMonitorCheck(input: BeginMonitorCheckInput): Promise<BeginMonitorCheckResult> {
      const monitor = await findMonitor(deps.db, input.monitorId);
      if (!monitor) return { status: 'deleted', jobs: [], searches: [] };
      const { planRow, usage } = await readTeamStanding(deps.db, monitor.team_id);
      const outOfCredits = creditsLeft(resolvePlan(planRow).monthlyCredits, usage.used) < 1;
      const targets = monitor.targets as unknown as StoredTarget[];
      const retentionHours = Math.min(monitor.retention_days * 24, deps.resultRetentionHours ?? RESULT_RETENTION_HOURS_DEFAULT);
      const begun = await beginCheck(deps.db, {
        checkId: input.checkId,
        monitorId: input.monitorId,
        trigger: input.trigger,
        scheduledFor: input.scheduledFor === undefined ? undefined : new Date(input.scheduledFor),
        workflowId: input.workflowId,
        estimatedCredits: creditsPerCheck(targets.map((t) => t.plan)),
        expiresAt: new Date(Date.now() + retentionHours * 3_600_000),
        outOfCredits,
      });
      if (!begun) return { status: 'deleted', jobs: [], searches: [] };
      const webhook = (monitor.webhook as unknown as WebhookConfig | null) ?? undefined;
      const base = { status: begun.status, teamId: monitor.team_id, webhook, email: emailNotificationOf(monitor.notification) !== undefined };
      if (begun.status !== 'running') return { ...base, jobs: [], searches: [] };

      const jobs: CheckJob[] = [];
      const searches: BeginMonitorCheckResult['searches'] = [];
      const duePages = await adaptivePageFilter(deps, monitor.id, monitor.schedule as unknown as ResolvedSchedule);
      for (const { target, plan: stored } of targets) {
        if (stored.kind === 'search') {
          searches.push({ targetId: target.id, plan: stored });
          continue;
        }
        const plan = stored.kind === 'batch_scrape' ? { ...stored, pages: duePages(target.id, stored.pages) } : stored;
        // An adaptive target none of whose pages is due runs no job this check.
        if (plan.kind === 'batch_scrape' && plan.pages.length === 0) continue;
        const jobId = jobIdFor(input.checkId, target.id);
        const workflowId = jobWorkflowId(plan.kind, jobId);
        await insertJob(deps.db, {
          id: jobId,
          team_id: monitor.team_id,
          kind: plan.kind,
          status: 'scraping',
          url: plan.kind === 'crawl' ? plan.crawler.startUrl : null,
          options: JSON.stringify({ monitorId: monitor.id, checkId: input.checkId, targetId: target.id, scrapeOptions: plan.scrapeOptions }),
          workflow_id: workflowId,
          idempotency_key: null,
          api_key_id: null,
          warning: null,
          updated_at: new Date(),
          expires_at: new Date(Date.now() + retentionHours * 3_600_000),
        }).catch((err: unknown) => {
          // 23505: this attempt's earlier try wrote it.
          if ((err as { code?: string }).code !== '23505') throw err;
        });
        if (plan.kind === 'batch_scrape') await addBatchPages(deps.db, jobId, plan.pages);
        jobs.push({
          targetId: target.id,
          type: plan.kind === 'crawl' ? 'crawl' : 'scrape',
          jobId,
          workflowId,
          input: {
            jobId,
            teamId: monitor.team_id,
            kind: plan.kind,
            scrapeOptions: plan.scrapeOptions,
            ...(plan.kind === 'crawl' && {
              crawler: plan.crawler,
              maxConcurrency: plan.maxConcurrency,
              delaySecs: plan.delaySecs,
            }),
            // A 304 would hide the links a crawl follows: conditional requests are for scrape targets only.
            changeDetection: { conditional: plan.kind === 'batch_scrape', ignoreNoise: plan.notify !== 'any' },
          },
        });
      }
      await setCheckTargets(
        deps.db,
        input.checkId,
        [
          ...jobs.map((j) => (j.type === 'crawl' ? { targetId: j.targetId, type: 'crawl', crawlId: j.jobId } : { targetId: j.targetId, type: 'scrape', expectedJobs: [j.jobId] })),
          ...searches.map((t) => ({ targetId: t.targetId, type: 'search' })),
        ],
      );
      return { ...base, jobs, searches };
    },

    /** The workflow failed or was cancelled before finishMonitorCheck: the check must not block the next ones. */
    async failMonitorCheck(input: { monitorId: string; checkId: string; error: string }): Promise<void> {
      await abandonCheck(deps.db, input.checkId, input.monitorId, input.error);
    },

    async finishMonitorCheck(input: FinishMonitorCheckInput): Promise<FinishMonitorCheckResult> {
      const monitor = await findMonitor(deps.db, input.monitorId);
      const compared: ComparedPage[] = [];
      let actualCredits = 0;
      const targetErrors: string[] = [];
      for (const target of input.targets) {
        const pages = await checkJobPages(deps.db, target.jobId);
        actualCredits += pages.reduce((sum, p) => sum + (p.credits_used ?? 0), 0);
        const previous = await previousCheckPages(deps.db, input.monitorId, target.targetId, input.checkId);
        compared.push(...comparePages(target, pages, previous));
        if (target.error) targetErrors.push(`target ${target.targetId}: ${target.error}`);
      }
      for (const search of input.searches) {
        if ('error' in search) {
          targetErrors.push(`target ${search.targetId}: ${search.error}`);
          continue;
        }
        compared.push(...search.pages);
        actualCredits += search.credits;
      }
      const judgments = monitor?.goal && monitor.judge_enabled && deps.llm ? await judge(deps, input, monitor.goal, compared) : new Map<ComparedPage, MonitorJudgment>();
      const rows: (CheckPage & { id: string })[] = compared.map((page) => ({ ...page, id: randomUUID(), judgment: (judgments.get(page) as unknown as Record<string, unknown>) ?? null }));
      await insertCheckPages(deps.db, input.checkId, input.monitorId, rows);
      const summary = summarize(compared);
      const errors = summary.error + targetErrors.length;
      const status: MonitorCheckStatus = errors === 0 ? 'completed' : summary.totalPages > summary.error ? 'partial' : 'failed';
      const error = targetErrors.length > 0 ? targetErrors.join('; ') : null;
      await finishCheck(deps.db, { checkId: input.checkId, monitorId: input.monitorId, status, summary, actualCredits, judged: judgments.size > 0, error });
      // Ids as stored: a retried activity inserted nothing new, so read them back.
      const stored = await listCheckEventPageIds(deps.db, input.checkId, MAX_PAGE_EVENTS);
      return { status, summary, actualCredits, eventPageIds: stored, error };
    },
  };
}

/**
 * For an adaptive monitor (lib/monitor/adaptive.ts), a filter that keeps the pages due at this
 * check; for any other, one that keeps them all. Reads the monitor's history once per check.
 */
async function adaptivePageFilter(deps: ActivityDeps, monitorId: string, schedule: ResolvedSchedule) {
  type Page = { url: string; urlKey: string };
  const { adaptive } = schedule;
  if (!adaptive) return (_targetId: string, pages: Page[]) => pages;
  const { currentTick, pages: history } = await monitorPageHistory(deps.db, monitorId);
  return (targetId: string, pages: Page[]) => {
    const cadences = targetCadences(targetId, pages.map((p) => p.urlKey), history, currentTick, adaptive);
    return pages.filter((p) => cadences.get(p.urlKey)!.due);
  };
}

/** Each new, changed or removed page judged against the goal; a model failure leaves that page unjudged. */
async function judge(deps: ActivityDeps, input: FinishMonitorCheckInput, goal: string, pages: readonly ComparedPage[]): Promise<Map<ComparedPage, MonitorJudgment>> {
  const model = modelFor(deps, { teamId: input.teamId, jobId: null }, 'monitorJudge');
  const judged = new Map<ComparedPage, MonitorJudgment>();
  const changes = pages.filter((p) => p.status === 'new' || p.status === 'changed' || p.status === 'removed').slice(0, MAX_JUDGED);
  for (const page of changes) {
    const text = page.snippet ?? (page.status === 'changed' ? String(page.diff?.text ?? '') : page.status === 'new' ? await markdownOf(deps, page.currentScrapeId) : '');
    try {
      const { judgment } = await judgeChange(model, goal, { url: page.url, status: page.status as 'new' | 'changed' | 'removed', text });
      judged.set(page, judgment);
    } catch (err) {
      log.warn('monitor: a change could not be judged', { checkId: input.checkId, url: page.url, error: String(err) });
    }
  }
  return judged;
}

async function markdownOf(deps: ActivityDeps, documentId: string | null): Promise<string> {
  if (!documentId) return '';
  const markdown = ((await findDocument(deps.db, documentId))?.document as { markdown?: unknown } | null | undefined)?.markdown;
  return typeof markdown === 'string' ? markdown : '';
}
