/**
 * Host identity rules shared by normalisation and crawl scope. Pure: tldts is plain JS with the
 * public suffix list compiled in, so it runs inside the Temporal workflow sandbox.
 */
import { getDomain } from 'tldts';

/** `www.example.com` → `example.com`; `www.com` is itself a registrable name and stays. */
export function stripWww(hostname: string): string {
  return hostname.startsWith('www.') && hostname.indexOf('.', 4) > 0 ? hostname.slice(4) : hostname;
}

/**
 * The registrable domain ("site") per the public suffix list, e.g. `docs.example.co.uk` →
 * `example.co.uk`. Private suffixes count, so `a.github.io` and `b.github.io` are different
 * sites. IP addresses and single-label hosts (`localhost`) are their own site.
 */
export function registrableDomain(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}
