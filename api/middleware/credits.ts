/**
 * Refuses work when the team's credits for this billing period are spent: 402 before anything
 * starts. Handlers that can scale their work down (a crawl's limit, a batch's URLs) read the
 * credits left with `remainingCreditsOf(res)`. The hard check is the charge itself, stored with
 * each page (activities/team-budget.ts); this one keeps hopeless requests from starting at all.
 */
import type { RequestHandler, Response } from 'express';
import type { Db } from '../../db/connect.js';
import { creditsLeft } from '../../lib/credits.js';
import { httpError } from '../errors.js';
import { teamStandingOf } from '../team-plan.js';

export function requireCredits(deps: { db: Db }): RequestHandler {
  return async (_req, res, next) => {
    // Usually read already by the rate limit, earlier in the same request.
    const { plan, usage } = await teamStandingOf(deps.db, res);
    const remaining = creditsLeft(plan.monthlyCredits, usage.used);
    if (remaining < 1) throw httpError('INSUFFICIENT_CREDITS', 'Payment Required: Insufficient credits');
    res.locals.remainingCredits = remaining;
    next();
  };
}

/** Credits left when `requireCredits` ran for this request. */
export function remainingCreditsOf(res: Response): number {
  return res.locals.remainingCredits as number;
}
