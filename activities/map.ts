/**
 * POST /v2/map as an activity: the site mapper (activities/site/mapper.ts) within the request's
 * deadline, behind threat protection. The links go to the job row, not back through Temporal:
 * 100,000 of them exceed its payload limit. Storing them completes the map job: the map's
 * "completed" belongs to this activity; the API, which waits for it, records only a failure or
 * timeout.
 */
import { Context } from '@temporalio/activity';
import { completeJobWithResult } from '../db/repositories/jobs.js';
import { CREDIT_COSTS } from '../lib/credits.js';
import { NonRetryablePageError } from '../lib/errors.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { withPageSignal } from './page/signal.js';
import { chargeWith, requireCredits } from './page/team-budget.js';
import { createSiteMapper, type SiteMap, type SiteMapRequest } from './site/mapper.js';
import type { RobotsLookup } from './site/site-rules.js';
import { pageThreatGate } from './threat/gate.js';

export type MapSiteInput = SiteMapRequest;

/** Only the count: the links themselves (up to 100,000) are in the job row, far over Temporal's payload limit. */
export interface MapSiteResult {
  count: number;
}

/** What the map activity stores in `jobs.result` for the API to answer with. */
export type MapJobResult = SiteMap;

/** Timers may fire a moment before the wall clock agrees. */
const DEADLINE_SLACK_MS = 50;

export function createMapSiteActivity(deps: ActivityDeps, robotsFor: RobotsLookup) {
  const collect = createSiteMapper(deps, robotsFor);
  return async function mapSite(input: MapSiteInput): Promise<MapSiteResult> {
    const cancelled = Context.current().cancellationSignal;
    return atActivityBoundary(async () => {
      // The start page and the sitemaps are fetched: threat protection rules on the site first.
      const threat = await pageThreatGate(deps, input.teamId, input.options.threatProtection);
      await threat?.check(input.url);
      return await withPageSignal(input.deadline, async (signal) => {
        const result = await beforeDeadline(collect(input, signal, threat?.check), signal, cancelled);
        // Sitemap reading stops at the deadline instead of failing, so a map that only ends there
        // was cut short. The slack covers timers firing a moment before the wall clock agrees.
        if (Date.now() >= input.deadline - DEADLINE_SLACK_MS) throw mapTimeout();
        await storeMap(deps, input, { ...result }, threat?.scanned ?? 0);
        return { count: result.links.length };
      });
    });
  };
}

/**
 * Completes the map with its links and, in the same transaction, charges the URLs threat
 * protection's classifier scanned (a map is otherwise free).
 */
async function storeMap(deps: ActivityDeps, input: MapSiteInput, result: Record<string, unknown>, scanned: number): Promise<void> {
  const credits = scanned * CREDIT_COSTS.threatScanPerUrl;
  if (credits === 0) return completeJobWithResult(deps.db, input.jobId, result);
  const { plan } = await requireCredits(deps.db, input.teamId);
  const charge = { teamId: input.teamId, jobId: input.jobId, chargeKey: `map:${input.jobId}:threat`, reason: 'threat-scan', credits };
  await chargeWith(deps.db, plan, charge, (trx) => completeJobWithResult(trx, input.jobId, result));
}

function mapTimeout(): NonRetryablePageError {
  return new NonRetryablePageError('MAP_TIMEOUT', 'Map timed out');
}

/**
 * `work`, or MAP_TIMEOUT the moment the deadline passes: lookups that ignore the deadline (a slow
 * robots.txt of some subdomain) must not hold the answer. A cancellation is rethrown as is.
 */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal, cancelled: AbortSignal): Promise<T> {
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(cancelled.aborted ? cancelled.reason : mapTimeout());
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([work, stopped]);
}
