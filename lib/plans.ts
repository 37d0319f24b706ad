/**
 * Team plans: what a team may use per billing period and per minute. Pure: the API, the
 * activities and the admin CLI read a plan through here, and README.md tables the defaults.
 *
 * A team without a stored plan gets DEFAULT_PLAN. The defaults are generous because the usual
 * self-hosted deployment has one team that owns the machine; lower them per team with
 * `npm run admin -- teams set NAME ...`.
 */
import type { TeamPlanRow } from '../db/schema.js';

/** Endpoint classes, each with its own per-minute rate limit. */
export const ENDPOINT_CLASSES = ['scrape', 'crawl', 'crawl-status', 'map', 'search', 'extract', 'agent'] as const;
export type EndpointClass = (typeof ENDPOINT_CLASSES)[number];

export interface TeamPlan {
  /** Credits per calendar month (UTC). */
  monthlyCredits: number;
  /** LLM tokens per calendar month; reported by /team/token-usage. */
  monthlyTokens: number;
  /** Requests per minute, per endpoint class. */
  rateLimits: Readonly<Record<EndpointClass, number>>;
  /** Pages of this team being fetched at once, across all its jobs and workers. */
  concurrency: number;
  /** Whether requests may ask for zeroDataRetention. */
  zeroDataRetention: boolean;
  /** Whether requests may carry threatProtection. */
  threatProtection: boolean;
  /** Monitors the team may keep; each is a Temporal Schedule on the shared cluster. */
  monitors: number;
  /** Agent runs of the team at once (sub-agents run inside their run's budget). */
  agentConcurrency: number;
  /**
   * Pages the team's failed agent runs may fetch per month without being billed. A failed run is
   * free, as Firecrawl's are, but the caller decides whether a run fails (a schema no answer can
   * meet): past this allowance a failed run pays for the pages its tools fetched.
   */
  unbilledFailedAgentPages: number;
}

export const DEFAULT_PLAN: Readonly<TeamPlan> = Object.freeze({
  monthlyCredits: 100_000_000,
  monthlyTokens: 100_000_000,
  rateLimits: Object.freeze({
    scrape: 1_000,
    crawl: 200,
    // Status polling: SDK waiters poll every second and follow `next` links without a pause.
    'crawl-status': 25_000,
    map: 1_000,
    search: 1_000,
    extract: 200,
    agent: 100,
  }),
  concurrency: 100,
  zeroDataRetention: false,
  threatProtection: false,
  monitors: 100,
  agentConcurrency: 10,
  unbilledFailedAgentPages: 100,
});

/** Highest concurrency a plan may set: slots are numbered 0..concurrency-1 in Postgres. */
export const MAX_PLAN_CONCURRENCY = 1_000;

/** The plan in force for a team: its stored row, or the defaults when it has none. */
export function resolvePlan(row: TeamPlanRow | undefined): TeamPlan {
  if (!row) return DEFAULT_PLAN;
  return {
    monthlyCredits: row.monthly_credits,
    monthlyTokens: row.monthly_tokens,
    rateLimits: {
      scrape: row.scrape_rpm,
      crawl: row.crawl_rpm,
      'crawl-status': row.crawl_status_rpm,
      map: row.map_rpm,
      search: row.search_rpm,
      extract: row.extract_rpm,
      agent: row.agent_rpm,
    },
    concurrency: row.concurrency,
    zeroDataRetention: row.zero_data_retention,
    threatProtection: row.threat_protection,
    monitors: row.max_monitors,
    agentConcurrency: row.agent_concurrency,
    unbilledFailedAgentPages: row.unbilled_failed_agent_pages,
  };
}

/** The columns that store `plan` (everything but the team id). */
export function planColumns(plan: TeamPlan): Omit<TeamPlanRow, 'team_id' | 'updated_at'> {
  return {
    monthly_credits: plan.monthlyCredits,
    monthly_tokens: plan.monthlyTokens,
    scrape_rpm: plan.rateLimits.scrape,
    crawl_rpm: plan.rateLimits.crawl,
    crawl_status_rpm: plan.rateLimits['crawl-status'],
    map_rpm: plan.rateLimits.map,
    search_rpm: plan.rateLimits.search,
    extract_rpm: plan.rateLimits.extract,
    agent_rpm: plan.rateLimits.agent,
    concurrency: plan.concurrency,
    zero_data_retention: plan.zeroDataRetention,
    threat_protection: plan.threatProtection,
    max_monitors: plan.monitors,
    agent_concurrency: plan.agentConcurrency,
    unbilled_failed_agent_pages: plan.unbilledFailedAgentPages,
  };
}

/** Billing periods are calendar months in UTC; this is the first instant after the one starting at `start`. */
export function billingPeriodEnd(start: Date): Date {
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
