/**
 * A crawl or map whose start URL the address policy refuses is refused at once with 403
 * SSRF_BLOCKED, as a scrape is, rather than "completing" with no pages. Single scrapes learn it
 * in the worker, which checks the socket it connects anyway.
 */
import { TrawlError } from '../lib/errors.js';
import { addressPolicyFor } from '../scraper/net/address-policy.js';
import { checkProxiedTarget } from '../scraper/net/peer-guard.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';

export async function refuseBlockedStartUrl(deps: AppDeps, url: string): Promise<void> {
  try {
    await checkProxiedTarget(new URL(url).hostname, addressPolicyFor(deps.config.allowPrivateNetwork));
  } catch (err) {
    if (err instanceof TrawlError && err.code === 'SSRF_BLOCKED') throw httpError('SSRF_BLOCKED', err.message);
    // A name that does not resolve here is the job's to report, as it is for every other page.
  }
}
