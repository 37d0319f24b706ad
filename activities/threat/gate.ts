/**
 * Threat protection for one page: the team's policy with the request's override, asked about
 * the page's URL before anything is fetched and about every URL the page moves to (redirect hops,
 * navigations). It counts the URLs the classifier scanned (2 credits each, charged with the page)
 * and notes when a classifier that could not answer was let through by `failurePolicy: open`.
 */
import type { ThreatProtectionOverride } from '../../contracts/scrape-options.js';
import { readThreatPolicy } from '../../db/repositories/threat-policy.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { applyOverride, canonicalHost, decideLocally, decideWithScore, protects, type ThreatPolicy, type ThreatVerdict } from '../../lib/threat/policy.js';
import type { Robots } from '../../scraper/discovery/robots.js';
import type { ActivityDeps } from '../deps.js';
import { activityCancellation } from '../page/signal.js';
import type { RobotsLookup } from '../site/site-rules.js';
import { ClassifierUnavailable } from './classifier.js';

export interface PageThreatGate {
  /** Throws THREAT_PROTECTION_BLOCKED for a URL the policy refuses. */
  check(url: string): Promise<void>;
  /** Whether the lists (blacklist, blocked TLDs) refuse the URL: decided here, without the classifier. */
  blockedByLists(url: string): boolean;
  /** URLs the classifier was asked about. */
  readonly scanned: number;
  /** Set when failurePolicy open let a URL through unscanned. */
  readonly warning?: string;
}

const RULE_TEXT: Record<ThreatVerdict['rule'], string> = {
  whitelist: 'the whitelist',
  blacklist: 'the blacklist',
  blockedTld: 'a blocked TLD',
  riskScore: 'its risk score',
  classifierUnavailable: 'failurePolicy closed: the classifier could not be reached',
  default: 'the default',
};

/**
 * The page's gate, or undefined when threat protection does not apply to this team and request.
 * `planEnabled`, when the caller already read the team's plan, spares the policy read for the
 * teams without the feature (most pages).
 */
export async function pageThreatGate(
  deps: ActivityDeps,
  teamId: string,
  override: ThreatProtectionOverride | undefined,
  planEnabled?: boolean,
): Promise<PageThreatGate | undefined> {
  if (planEnabled === false && !override) return undefined;
  const teamPolicy = await readThreatPolicy(deps.db, teamId);
  const applied = applyOverride(teamPolicy, override);
  // The API refused these already; a policy changed since the request was accepted lands here.
  if (typeof applied === 'string') throw new NonRetryablePageError('FORBIDDEN', `Forbidden: threat protection override refused (${applied})`);
  const policy: ThreatPolicy = applied;
  if (!protects(policy)) return undefined;
  const classifier = deps.threatClassifier;
  let scanned = 0;
  let warning: string | undefined;
  const verdicts = new Map<string, ThreatVerdict>();

  // A cancelled job stops waiting on the classifier.
  const cancelled = activityCancellation();

  async function verdictFor(url: string): Promise<ThreatVerdict> {
    const local = decideLocally(policy, url);
    if (local) return local;
    const host = canonicalHost(url) ?? '';
    if (!classifier) return decideWithScore(policy, host, { error: 'no classifier is configured' });
    scanned += 1;
    try {
      const answer = await classifier.classify(url, cancelled);
      return decideWithScore(policy, host, { score: answer.score });
    } catch (err) {
      if (!(err instanceof ClassifierUnavailable)) throw err;
      return decideWithScore(policy, host, { error: err.message });
    }
  }

  return {
    blockedByLists(url) {
      return decideLocally(policy, url)?.allowed === false;
    },
    get scanned() {
      return scanned;
    },
    get warning() {
      return warning;
    },
    async check(url) {
      const verdict = verdicts.get(url) ?? (await verdictFor(url));
      verdicts.set(url, verdict);
      if (verdict.allowed) {
        if (verdict.rule === 'classifierUnavailable') {
          warning = `Threat protection's classifier could not be reached (${verdict.classifierError}); failurePolicy open let ${verdict.host} through unscanned.`;
        }
        return;
      }
      const scored = verdict.score !== undefined ? `, risk score ${verdict.score}` : '';
      throw new NonRetryablePageError('THREAT_PROTECTION_BLOCKED', `Blocked by threat protection: ${verdict.host || url} (${RULE_TEXT[verdict.rule]}${scored})`, {
        details: {
          url,
          host: verdict.host,
          rule: verdict.rule,
          ...(verdict.score !== undefined && { score: verdict.score, threshold: (policy).riskScoreThreshold }),
          ...(verdict.classifierError && { classifierError: verdict.classifierError }),
        },
      });
    },
  };
}

/**
 * robots.txt lookups that never contact a host the lists block: its pages are queued without
 * robots.txt's say, then refused by the gate before any fetch and listed in /errors as blocked.
 */
export function sparingBlockedHosts(robotsFor: RobotsLookup, threat: PageThreatGate | undefined): RobotsLookup {
  if (!threat) return robotsFor;
  return async (jobId, url, via) => {
    if (!threat.blockedByLists(url)) return robotsFor(jobId, url, via);
    return { isAllowed: () => true, crawlDelaySecs: () => undefined, sitemaps: () => [], source: 'unavailable', reason: 'blocked by threat protection: robots.txt not read' } satisfies Robots;
  };
}
