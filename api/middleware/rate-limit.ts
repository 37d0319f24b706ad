/**
 * Per-team request limits per minute (or per RATE_LIMIT_WINDOW_SECONDS), one per endpoint class (lib/plans.ts). The counter lives
 * in Postgres (db/repositories/rate-limits.ts), so every API process enforces the same limit.
 * Mount after `authenticate`: the team is the one the key belongs to.
 */
import type { RequestHandler } from 'express';
import { countRequest } from '../../db/repositories/rate-limits.js';
import type { Db } from '../../db/connect.js';
import type { Config } from '../../lib/config.js';
import type { EndpointClass } from '../../lib/plans.js';
import { httpError } from '../errors.js';
import { teamStandingOf } from '../team-plan.js';
import { authOf } from './auth.js';

export function rateLimit(deps: { db: Db; config: Pick<Config, 'rateLimitWindowSeconds'> }, endpoint: EndpointClass): RequestHandler {
  return async (_req, res, next) => {
    // Independent reads, so one round trip: the plan (with the usage the credit check reads later) and the count.
    const [standing, window] = await Promise.all([
      teamStandingOf(deps.db, res),
      countRequest(deps.db, authOf(res).teamId, endpoint, deps.config.rateLimitWindowSeconds),
    ]);
    const limit = standing.plan.rateLimits[endpoint];
    const resetSecs = Math.max(1, Math.ceil((window.resetsAt.getTime() - Date.now()) / 1000));
    res.set({
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - window.count)),
      'X-RateLimit-Reset': String(Math.ceil(window.resetsAt.getTime() / 1000)),
    });
    if (window.count > limit) {
      // Kept by the error handler, which only sets the status and body.
      res.set('Retry-After', String(resetSecs));
      throw httpError(
        'RATE_LIMITED',
        `Rate limit exceeded. Consumed (req/min): ${window.count}, Remaining (req/min): 0. ` +
          `Please retry after ${resetSecs}s, resets at ${window.resetsAt.toISOString()}`,
      );
    }
    next();
  };
}
