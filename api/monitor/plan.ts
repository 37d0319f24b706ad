/**
 * A monitor's targets, from the parsed request to what is stored: each gets an id (kept when the
 * client gave one) and its run plan (lib/monitor/plan.ts), and the schedule and plans give the
 * monitor's estimatedCreditsPerMonth. Targets Trawl cannot run, or notifications it cannot send,
 * are 400s here, before anything is written.
 */
import { randomUUID } from 'node:crypto';
import { creditsPerCheck, DEFAULT_SEARCH_MAX_RESULTS, monitorScrapeOptions, monitorTag, SEARCH_WINDOW_TBS, type StoredTarget, type TargetPlan } from '../../lib/monitor/plan.js';
import { resolveSchedule, runsPerMonth, ScheduleError, type MonitorScheduleInput, type ResolvedSchedule } from '../../lib/monitor/schedule.js';
import { exactPageKey } from '../../lib/url/normalize.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { crawlerSettings } from '../routes/crawl.js';
import type { MonitorCreateRequest, MonitorTarget } from './schemas.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertScrapeOptionsSupported, type DeploymentFeatures } from '../unsupported-options.js';

export function scheduleOf(input: MonitorScheduleInput): ResolvedSchedule {
  try {
    return resolveSchedule(input);
  } catch (err) {
    if (err instanceof ScheduleError) throw httpError('BAD_REQUEST', `Bad Request: schedule: ${err.message}`, { path: ['schedule'] });
    throw err;
  }
}

export function storedTargets(deps: AppDeps, monitorId: string, targets: readonly MonitorTarget[]): StoredTarget[] {
  const ids = new Set<string>();
  return targets.map((given, index) => {
    const id = given.id ?? randomUUID();
    if (ids.has(id)) throw httpError('BAD_REQUEST', `Bad Request: targets.${index}.id: "${id}" is used by another target`, { path: ['targets', index, 'id'] });
    ids.add(id);
    if (given.type === 'search') {
      const plan: TargetPlan = {
        kind: 'search',
        queries: given.queries,
        ...(given.searchWindow && { tbs: SEARCH_WINDOW_TBS[given.searchWindow] }),
        includeDomains: given.includeDomains ?? [],
        excludeDomains: given.excludeDomains ?? [],
        maxResults: given.maxResults ?? DEFAULT_SEARCH_MAX_RESULTS,
      };
      return { target: { ...given, id }, plan };
    }
    assertScrapeOptionsSupported(given.scrapeOptions, deps.features);
    const scrapeOptions = monitorScrapeOptions(given.scrapeOptions, monitorTag(monitorId, id));
    let plan: TargetPlan;
    if (given.type === 'scrape') {
      const pages = new Map<string, { url: string; urlKey: string }>();
      for (const raw of given.urls) {
        const url = absoluteHttpUrl(raw)!;
        const key = exactPageKey(url);
        pages.set(key, { url, urlKey: key });
      }
      plan = { kind: 'batch_scrape', pages: [...pages.values()], scrapeOptions, ...(given.notify && { notify: given.notify }) };
    } else {
      const { delay, maxConcurrency, ...options } = given.crawlOptions;
      plan = {
        kind: 'crawl',
        crawler: crawlerSettings({ url: given.url, ...options, scrapeOptions: given.scrapeOptions }),
        scrapeOptions,
        ...(maxConcurrency !== undefined && { maxConcurrency }),
        ...(delay !== undefined && { delaySecs: delay }),
        ...(given.notify && { notify: given.notify }),
      };
    }
    return { target: { ...given, id }, plan };
  });
}

export function estimatedCreditsPerMonth(schedule: ResolvedSchedule, targets: readonly StoredTarget[]): number {
  return runsPerMonth(schedule) * creditsPerCheck(targets.map((t) => t.plan));
}

/** Email needs an SMTP server (SMTP_URL): without one, a clear 400 rather than a notification that never arrives. */
export function assertNotificationSupported(notification: MonitorCreateRequest['notification'] | null | undefined, features: DeploymentFeatures): void {
  const email = notification?.email;
  if (!email || email.enabled === false) return;
  if (!features.emailConfigured) {
    throw httpError('UNSUPPORTED_OPTION', 'Email notifications need SMTP settings (SMTP_URL), which this deployment does not have; use a webhook instead', {
      path: ['notification', 'email'],
    });
  }
  if (email.recipients.length === 0) {
    throw httpError('BAD_REQUEST', 'Bad Request: notification.email.recipients: an enabled email notification needs at least one recipient', {
      path: ['notification', 'email', 'recipients'],
    });
  }
}
