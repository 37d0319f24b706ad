/**
 * A caller's own proxy (Jina Reader's X-Proxy-Url). Unlike the operator's upstream proxies it is
 * not trusted: its address passes the same policy as a target's, once before the page
 * (vetCallerProxy, so a refused proxy fails the scrape as SSRF_BLOCKED whichever engine runs it)
 * and again on every connection to it (callerProxyLookup), where the address dialled is the one
 * judged. Targets are still checked before each request, as through any upstream
 * (checkProxiedTarget, which names the residual risk of a proxy resolving them itself).
 *
 * Errors name the proxy by its host only: its URL may hold the caller's credentials.
 */
import type { LookupFunction } from 'node:net';
import { NonRetryablePageError, TrawlError } from '../../lib/errors.js';
import type { AddressPolicy } from './address-policy.js';
import { errorCode } from './network-error.js';
import { checkProxiedTarget, guardedLookup, literalViolation, ssrfBlockedError } from './peer-guard.js';

const unbracketed = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address the proxy's name resolves to must be allowed; throws SSRF_BLOCKED or a DNS error. */
export async function vetCallerProxy(proxy: string, policy: AddressPolicy): Promise<void> {
  const host = unbracketed(new URL(proxy).hostname);
  try {
    await checkProxiedTarget(host, policy);
  } catch (err) {
    if (err instanceof TrawlError && err.code === 'SSRF_BLOCKED') {
      // Said to be the proxy's, so the caller does not look for the fault in the page's URL.
      const { address } = err.details as { address: string };
      throw ssrfBlockedError(host, address, { proxy: true });
    }
    if (err instanceof TrawlError) throw err;
    const code = errorCode(err) ?? 'UNKNOWN';
    throw new NonRetryablePageError('SCRAPE_DNS_RESOLUTION_ERROR', `DNS resolution failed for the proxy ${host} (${code})`, {
      details: { proxy: host, code },
    });
  }
}

/**
 * The `lookup` to dial the proxy with (net, tls and undici's connectors all take one): a name is
 * resolved through guardedLookup, and net.connect dials only what it answered, so a name that
 * rebinds to a private address after vetCallerProxy is refused here. An IP literal skips the
 * lookup, so it is judged now: throws SSRF_BLOCKED for one the policy forbids.
 */
export function callerProxyLookup(proxy: string, policy: AddressPolicy): LookupFunction {
  const host = unbracketed(new URL(proxy).hostname);
  if (literalViolation(host, policy)) throw ssrfBlockedError(host, host, { proxy: true });
  return guardedLookup(policy);
}
