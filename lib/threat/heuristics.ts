/**
 * The built-in risk scorer's URL heuristics, pure and offline. Each signal adds points; the sum
 * is capped at 100. They catch the cheap tricks of phishing and malware hosting: raw IP hosts,
 * lookalikes of well-known brands (punycode, mixed scripts, digit swaps, one-letter typos, the
 * brand as a subdomain of another site), long subdomain chains, TLDs abused far more than they
 * are used, and credential-bait paths. They do not know a site's reputation, its content, or a
 * new phishing kit on a clean-looking domain: those need a threat list or an HTTP classifier.
 */
import { domainToUnicode } from 'node:url';
import { parse } from 'tldts';

export interface HeuristicScore {
  score: number;
  /** Each signal that fired, with its points: the README and the tests quote them. */
  signals: { signal: string; points: number }[];
}

/** Brands phishing imitates most (APWG, Cloudflare and Google TAG reports). */
export const POPULAR_BRANDS = [
  'google', 'paypal', 'apple', 'microsoft', 'amazon', 'facebook', 'instagram', 'netflix', 'linkedin', 'twitter',
  'github', 'dropbox', 'outlook', 'office365', 'yahoo', 'ebay', 'coinbase', 'binance', 'icloud', 'whatsapp',
  'adobe', 'docusign', 'chase', 'wellsfargo', 'bankofamerica', 'steam', 'roblox', 'metamask', 'dhl', 'fedex',
];

/** A brand as a whole word of a subdomain (`paypal.com.account-check.net`). */
const BRAND_WORD = new RegExp(`(?<=^|[.-])(${POPULAR_BRANDS.join('|')})(?=[.-]|$)`, 'g');

/** TLDs with far more abuse than use (Spamhaus and Interisle's yearly reports). */
export const RISKY_TLDS = ['zip', 'mov', 'tk', 'ml', 'ga', 'cf', 'gq', 'top', 'xyz', 'click', 'country', 'kim', 'work', 'rest', 'cam', 'icu', 'buzz', 'monster', 'sbs', 'cyou'];

const BAIT_WORDS = ['login', 'log-in', 'signin', 'sign-in', 'verify', 'verification', 'account', 'update', 'secure', 'banking', 'wallet', 'password', 'unlock', 'suspended', 'confirm'];

const POINTS = {
  ipHost: 40,
  punycode: 20,
  mixedScript: 40,
  lookalike: 50,
  brandOnOtherSite: 45,
  manySubdomains: 20,
  riskyTld: 25,
  baitPath: 15,
  atInUrl: 30,
  manyHyphens: 10,
} as const;

/** Digits and letters that stand in for each other in lookalikes. */
const SWAPS: Record<string, string> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', rn: 'm', vv: 'w' };

/** Cyrillic and Greek letters drawn like Latin ones (a subset of Unicode's confusables). */
const CONFUSABLES: Record<string, string> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ӏ: 'l', һ: 'h', ԛ: 'q', ԝ: 'w',
  α: 'a', ο: 'o', ρ: 'p', ν: 'v', τ: 't', ι: 'i', κ: 'k', χ: 'x', ε: 'e',
};

function latinSkeleton(label: string): string {
  return [...label.normalize('NFKC')].map((ch) => CONFUSABLES[ch] ?? ch).join('');
}

function unswapped(label: string): string {
  let out = label;
  for (const [from, to] of Object.entries(SWAPS)) out = out.split(from).join(to);
  return out;
}

/** Levenshtein distance at most 1 (one insertion, deletion or substitution). */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (a.length < b.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

function scripts(text: string): Set<string> {
  const found = new Set<string>();
  for (const ch of text) {
    if (/\p{Script=Latin}/u.test(ch)) found.add('latin');
    else if (/\p{Script=Cyrillic}/u.test(ch)) found.add('cyrillic');
    else if (/\p{Script=Greek}/u.test(ch)) found.add('greek');
    else if (/\p{Script=Armenian}/u.test(ch)) found.add('armenian');
  }
  return found;
}

export function scoreUrl(url: string): HeuristicScore {
  const signals: HeuristicScore['signals'] = [];
  const add = (signal: keyof typeof POINTS) => signals.push({ signal, points: POINTS[signal] });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { score: 0, signals };
  }
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  const info = parse(host);
  if (info.isIp || host.startsWith('[')) add('ipHost');
  else {
    const unicode = domainToUnicode(host);
    const label = (info.domainWithoutSuffix ?? '').toLowerCase();
    const unicodeLabel = domainToUnicode(label);
    if (host.split('.').some((l) => l.startsWith('xn--'))) add('punycode');
    if (unicode.split('.').some((l) => scripts(l).size > 1)) add('mixedScript');
    // A brand's name, spelt almost right (or as a word of the name), on a domain that is not the brand's.
    const skeleton = unswapped(latinSkeleton(unicodeLabel));
    const candidates = [skeleton.replace(/-/g, ''), ...skeleton.split('-')];
    const imitated = POPULAR_BRANDS.some((brand) => label !== brand && candidates.some((c) => c.length >= 4 && (c === brand || withinOneEdit(c, brand))));
    if (imitated) add('lookalike');
    // The brand as a subdomain or path of someone else's site: paypal.com.account-check.net.
    const sub = (info.subdomain ?? '').toLowerCase();
    if ([...sub.matchAll(BRAND_WORD)].some((m) => m[1] !== label)) add('brandOnOtherSite');
    if (sub.split('.').filter(Boolean).length >= 4) add('manySubdomains');
    if (RISKY_TLDS.includes((info.publicSuffix ?? '').toLowerCase())) add('riskyTld');
    if ((unicodeLabel.match(/-/g) ?? []).length >= 3) add('manyHyphens');
  }
  const path = decodeURIComponent(parsed.pathname + parsed.search).toLowerCase();
  if (BAIT_WORDS.some((w) => path.includes(w))) add('baitPath');
  if (parsed.username || parsed.password || url.slice(url.indexOf('://') + 3).split('/')[0]!.includes('@')) add('atInUrl');
  return { score: Math.min(100, signals.reduce((n, s) => n + s.points, 0)), signals };
}
