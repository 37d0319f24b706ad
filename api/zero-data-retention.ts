/**
 * Zero data retention, asked for by a request (`zeroDataRetention: true` on scrape, batch scrape
 * and crawl; `enterprise: ["zdr"]` on search) and allowed by the team's plan (`--zdr true`). A team
 * without it gets Firecrawl's refusal, alike for every job kind. A ZDR job carries the flag in its
 * ScrapeOptions (every page keeps nothing: activities/page/pipeline.ts) and in its row (its content
 * is forgotten once delivered: db/repositories/zero-data-retention.ts).
 */
import type { Response } from 'express';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';
import { teamStandingOf } from './team-plan.js';

/** Firecrawl's text and status (400) for a team whose plan does not allow ZDR. */
export const ZDR_NOT_ALLOWED = "Zero data retention is enabled for this team. If you're interested in ZDR, please contact support@firecrawl.com";

/** Firecrawl's text and status (403) for `enterprise: ["zdr"]` on a search by such a team. */
export const ZDR_SEARCH_NOT_ALLOWED = 'Zero Data Retention (ZDR) search is not enabled for your team.';

/** Whether the job is ZDR; throws the refusal when it asks for ZDR and the plan does not allow it. */
export async function zeroDataRetentionOf(
  deps: AppDeps,
  res: Response,
  requested: boolean,
  refusal: { code: 'BAD_REQUEST' | 'FORBIDDEN'; message: string; option: string } = { code: 'BAD_REQUEST', message: ZDR_NOT_ALLOWED, option: 'zeroDataRetention' },
): Promise<boolean> {
  if (!requested) return false;
  if (!(await teamStandingOf(deps.db, res)).plan.zeroDataRetention) throw httpError(refusal.code, refusal.message, { option: refusal.option });
  return true;
}

/** The options every page of the job runs with. */
export function withZeroDataRetention<O extends ScrapeOptions>(options: O, zdr: boolean): O {
  return zdr ? { ...options, zeroDataRetention: true } : options;
}
