import type { RequestHandler } from 'express';
import type { EndpointClass } from '../../lib/plans.js';
import type { Scope } from '../auth/api-keys.js';
import type { AppDeps } from '../deps.js';
import { authenticate, requireScope } from './auth.js';
import { refuseBlockedWebhook } from '../target-check.js';
import { rateLimit } from './rate-limit.js';

/**
 * What every keyed route runs first, in this order: the key (401), its scope (403), then the
 * team's per-minute limit for the endpoint class (429), then a webhook to a blocked literal
 * address (400, api/target-check.ts). The order matters: the rate limit counts
 * against the key's team, and a key without the scope must not consume the team's budget.
 */
export function guard(deps: AppDeps, scope: Scope, endpoint: EndpointClass): RequestHandler[] {
  return [authenticate({ db: deps.db, mode: deps.config.auth }), requireScope(scope), rateLimit(deps, endpoint), refuseBlockedWebhook(deps)];
}
