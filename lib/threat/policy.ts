/**
 * Threat protection's rules, pure: a team's policy, a request's override of it, and the local
 * decision for a URL. Precedence, as Firecrawl's: whitelist, then blacklist, then blocked TLDs,
 * then (mode `normal`) the classifier's score against the threshold, then, when the classifier
 * cannot answer, the failure policy.
 *
 * Domain entries match the host and its subdomains (`example.com` covers `a.example.com`); an
 * entry with `*` is a glob over the whole host or over its registrable domain (`paypal-*.com` covers
 * `login.paypal-secure.com`; `*.example.com` leaves out the apex). Rules see one
 * canonical host: lowercase, no trailing dot, IP literals in WHATWG form (so `http://3279880203/`
 * is `195.127.0.11`, as the fetch would see it).
 */
import type { ThreatProtectionOverride } from '../../contracts/scrape-options.js';
import { compileGlob } from '../patterns/glob.js';
import { registrableDomain } from '../url/host.js';

export interface ThreatPolicy {
  /** The enterprise feature flag: without it a team may not send `threatProtection`. */
  enabled: boolean;
  mode: 'off' | 'normal';
  riskScoreThreshold: number;
  blacklist: string[];
  whitelist: string[];
  blockedTlds: string[];
  failurePolicy: 'open' | 'closed';
  allowRequestOverrides: boolean;
  /** `mode: off` may not be sent. */
  enforced: boolean;
}

export const DEFAULT_THREAT_POLICY: ThreatPolicy = Object.freeze({
  enabled: false,
  mode: 'normal',
  riskScoreThreshold: 75,
  blacklist: [],
  whitelist: [],
  blockedTlds: [],
  failurePolicy: 'closed',
  allowRequestOverrides: true,
  enforced: false,
}) as ThreatPolicy;

/** Why a request's override is refused (each a 403). */
export type OverrideRefusal = 'not-enabled' | 'overrides-disabled' | 'enforced';

/** The policy a request runs under: the team's, with the fields the request gives replaced. */
export function applyOverride(policy: ThreatPolicy, override: ThreatProtectionOverride | undefined): ThreatPolicy | OverrideRefusal {
  if (!override) return policy;
  if (!policy.enabled) return 'not-enabled';
  if (!policy.allowRequestOverrides) return 'overrides-disabled';
  if (policy.enforced && override.mode === 'off') return 'enforced';
  const given = Object.fromEntries(Object.entries(override).filter(([, v]) => v !== undefined));
  return { ...policy, ...given };
}

/** Whether URLs are checked at all under this policy. */
export function protects(policy: ThreatPolicy): boolean {
  return policy.enabled && (policy.mode === 'normal' || policy.blacklist.length > 0 || policy.blockedTlds.length > 0);
}

export type ThreatRule = 'whitelist' | 'blacklist' | 'blockedTld' | 'riskScore' | 'classifierUnavailable' | 'default';

export interface ThreatVerdict {
  allowed: boolean;
  rule: ThreatRule;
  /** The classifier's score, when it was asked. */
  score?: number;
  host: string;
  /** Set when the classifier could not answer and the failure policy decided. */
  classifierError?: string;
}

/** The host the rules see, or undefined for a URL without one. */
export function canonicalHost(url: string): string | undefined {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
    return host.replace(/^\[|\]$/g, '') || undefined;
  } catch {
    return undefined;
  }
}

/** Whether `host` matches a list entry (see the module comment); globs match in linear time. */
export function matchesDomain(host: string, entry: string): boolean {
  const e = entry.toLowerCase().replace(/\.$/, '');
  if (e.includes('*')) {
    const glob = compileGlob(e);
    return glob(host) || glob(registrableDomain(host));
  }
  return host === e || host.endsWith(`.${e}`);
}

export function matchesTld(host: string, tld: string): boolean {
  return host === tld || host.endsWith(`.${tld}`);
}

/**
 * The decision that needs no classifier, or `undefined` when the classifier must be asked
 * (mode `normal` and no list decided). Mode `off` with nothing listed allows by default.
 */
export function decideLocally(policy: ThreatPolicy, url: string): ThreatVerdict | undefined {
  const host = canonicalHost(url);
  if (!host) return { allowed: false, rule: 'blacklist', host: '' };
  if (policy.whitelist.some((e) => matchesDomain(host, e))) return { allowed: true, rule: 'whitelist', host };
  if (policy.blacklist.some((e) => matchesDomain(host, e))) return { allowed: false, rule: 'blacklist', host };
  if (policy.blockedTlds.some((t) => matchesTld(host, t))) return { allowed: false, rule: 'blockedTld', host };
  if (policy.mode === 'off') return { allowed: true, rule: 'default', host };
  return undefined;
}

/** The decision from the classifier's answer: a score, or the reason it had none. */
export function decideWithScore(policy: ThreatPolicy, host: string, answer: { score: number } | { error: string }): ThreatVerdict {
  if ('error' in answer) {
    return { allowed: policy.failurePolicy === 'open', rule: 'classifierUnavailable', host, classifierError: answer.error };
  }
  const blocked = answer.score >= policy.riskScoreThreshold;
  return { allowed: !blocked, rule: blocked ? 'riskScore' : 'default', score: answer.score, host };
}
