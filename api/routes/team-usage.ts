/**
 * The team's usage, as the SDK's getCreditUsage, getTokenUsage (and their historical variants),
 * getConcurrency and getQueueStatus read it. v1 answers credit and token usage in snake_case, as
 * Firecrawl's v1 did; everything else is the same on both versions.
 */
import { Router, type RequestHandler } from 'express';
import { countActiveSlots } from '../../db/repositories/concurrency-slots.js';
import { listTokenPeriods, readPeriodTokens } from '../../db/repositories/token-ledger.js';
import { listCreditPeriods, readQueueCounts } from '../../db/repositories/usage.js';
import { creditsLeft } from '../../lib/credits.js';
import { billingPeriodEnd } from '../../lib/plans.js';
import type { AppDeps } from '../deps.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { teamStandingOf } from '../team-plan.js';

type Version = 'v1' | 'v2';

export function teamUsageRoutes(deps: AppDeps): Router {
  const router = Router();
  // Usage reads are polled like job status, so they share its generous class.
  const checks = guard(deps, 'usage', 'crawl-status');
  for (const version of ['v1', 'v2'] as const) {
    router.get(`/${version}/team/credit-usage`, ...checks, creditUsage(deps, version));
    router.get(`/${version}/team/credit-usage/historical`, ...checks, creditUsageHistorical(deps));
    router.get(`/${version}/team/token-usage`, ...checks, tokenUsage(deps, version));
    router.get(`/${version}/team/token-usage/historical`, ...checks, tokenUsageHistorical(deps));
    router.get(`/${version}/team/queue-status`, ...checks, queueStatus(deps));
    router.get(`/${version}/concurrency-check`, ...checks, concurrencyCheck(deps));
  }
  return router;
}

function creditUsage(deps: AppDeps, version: Version): RequestHandler {
  return async (_req, res) => {
    const { plan, usage } = await teamStandingOf(deps.db, res);
    const remaining = creditsLeft(plan.monthlyCredits, usage.used);
    res.json({ success: true, data: usageData(version, 'Credits', remaining, plan.monthlyCredits, usage.periodStart) });
  };
}

function creditUsageHistorical(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const byApiKey = req.query.byApiKey === 'true';
    const periods = await listCreditPeriods(deps.db, authOf(res).teamId, byApiKey);
    res.json({
      success: true,
      periods: periods.map((p) => ({
        startDate: p.periodStart.toISOString(),
        endDate: billingPeriodEnd(p.periodStart).toISOString(),
        // Keys are stored only as hashes; the prefix is how `keys list` and people tell them apart.
        ...(byApiKey && p.keyPrefix && { apiKey: p.keyPrefix }),
        creditsUsed: p.creditsUsed,
      })),
    });
  };
}

/** The plan's tokens less what the token ledger recorded this period (every model call is in it). */
function tokenUsage(deps: AppDeps, version: Version): RequestHandler {
  return async (_req, res) => {
    const { plan, usage } = await teamStandingOf(deps.db, res);
    const used = await readPeriodTokens(deps.db, authOf(res).teamId, usage.periodStart);
    const remaining = creditsLeft(plan.monthlyTokens, used);
    res.json({ success: true, data: usageData(version, 'Tokens', remaining, plan.monthlyTokens, usage.periodStart) });
  };
}

function tokenUsageHistorical(deps: AppDeps): RequestHandler {
  return async (_req, res) => {
    const [{ usage }, periods] = await Promise.all([teamStandingOf(deps.db, res), listTokenPeriods(deps.db, authOf(res).teamId)]);
    // The current period is always listed, with 0 before any model call in it.
    if (!periods.some((p) => p.periodStart.getTime() === usage.periodStart.getTime())) periods.push({ periodStart: usage.periodStart, tokensUsed: 0 });
    res.json({
      success: true,
      periods: periods.map((p) => ({
        startDate: p.periodStart.toISOString(),
        endDate: billingPeriodEnd(p.periodStart).toISOString(),
        tokensUsed: p.tokensUsed,
      })),
    });
  };
}

/**
 * Firecrawl counts scrape jobs; a Trawl team's queue is the unfinished pages of its running
 * crawls, batches and scrapes. Active ones hold a concurrency slot; the rest wait for one.
 */
function queueStatus(deps: AppDeps): RequestHandler {
  return async (_req, res) => {
    const { teamId } = authOf(res);
    const [{ plan }, active, queue] = await Promise.all([
      teamStandingOf(deps.db, res),
      countActiveSlots(deps.db, teamId),
      readQueueCounts(deps.db, teamId),
    ]);
    const waiting = Math.max(0, queue.openPages - active);
    res.json({
      success: true,
      jobsInQueue: active + waiting,
      activeJobsInQueue: active,
      waitingJobsInQueue: waiting,
      maxConcurrency: plan.concurrency,
      mostRecentSuccess: queue.mostRecentSuccess?.toISOString() ?? null,
    });
  };
}

function concurrencyCheck(deps: AppDeps): RequestHandler {
  return async (_req, res) => {
    const [{ plan }, active] = await Promise.all([
      teamStandingOf(deps.db, res),
      countActiveSlots(deps.db, authOf(res).teamId),
    ]);
    res.json({ success: true, concurrency: active, maxConcurrency: plan.concurrency });
  };
}

/** The `data` of credit and token usage: camelCase in v2, snake_case as Firecrawl's v1 answered. */
function usageData(version: Version, unit: 'Credits' | 'Tokens', remaining: number, plan: number, periodStart: Date) {
  const start = periodStart.toISOString();
  const end = billingPeriodEnd(periodStart).toISOString();
  const lower = unit.toLowerCase();
  return version === 'v1'
    ? { [`remaining_${lower}`]: remaining, [`plan_${lower}`]: plan, billing_period_start: start, billing_period_end: end }
    : { [`remaining${unit}`]: remaining, [`plan${unit}`]: plan, billingPeriodStart: start, billingPeriodEnd: end };
}
