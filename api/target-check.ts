/**
 * Addresses checked before a job starts. A crawl or map whose start URL the address policy refuses is refused at once with 403
 * SSRF_BLOCKED, as a scrape is, rather than "completing" with no pages. Single scrapes learn it
 * in the worker, which checks the socket it connects anyway.
 */
import type { RequestHandler } from 'express';
import { isIP } from 'node:net';
import { TrawlError } from '../lib/errors.js';
import { addressPolicyFor } from '../scraper/net/address-policy.js';
import { toPageError } from '../scraper/net/network-error.js';
import { checkProxiedTarget } from '../scraper/net/peer-guard.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';

export async function refuseBlockedStartUrl(deps: AppDeps, url: string, options: { refuseUnresolvable?: boolean } = {}): Promise<void> {
  try {
    await checkProxiedTarget(new URL(url).hostname, addressPolicyFor(deps.config.allowPrivateNetwork));
  } catch (err) {
    if (err instanceof TrawlError && err.code === 'SSRF_BLOCKED') throw httpError('SSRF_BLOCKED', err.message);
    // A map answers at once, as a scrape does: a name that does not resolve is the caller's 400.
    // For a crawl it is the job's to report, as it is for every other page.
    const asPage = toPageError(err, new URL(url));
    if (options.refuseUnresolvable && asPage.code === 'SCRAPE_DNS_RESOLUTION_ERROR') throw httpError(asPage.code, asPage.message);
  }
}

/**
 * A webhook whose URL is a literal address the policy refuses (a private range, the cloud
 * metadata endpoint) is a 400 at submission, for every route that takes one, instead of a job
 * accepted whose every delivery will be refused. Names are resolved, and checked, at delivery.
 */
export function refuseBlockedWebhook(deps: AppDeps): RequestHandler {
  const policy = addressPolicyFor(deps.config.allowPrivateNetwork);
  return (req, _res, next) => {
    const webhook: unknown = (req.body as { webhook?: unknown } | undefined)?.webhook;
    const url = typeof webhook === 'string' ? webhook : (webhook as { url?: unknown } | null | undefined)?.url;
    const host = typeof url === 'string' && URL.canParse(url) ? new URL(url).hostname.replace(/^\[|\]$/g, '') : undefined;
    if (host && isIP(host) && !policy(host)) {
      return next(httpError('WEBHOOK_TARGET_BLOCKED', `Bad Request: webhook.url: ${host} is an address webhooks may not be sent to (private, local or metadata)`, { path: ['webhook', 'url'] }));
    }
    next();
  };
}
