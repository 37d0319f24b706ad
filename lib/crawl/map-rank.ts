/**
 * Orders POST /v2/map results by relevance to its `search` string. Firecrawl ranks by cosine
 * similarity of the query with the URL; we score token matches per field, because a map result
 * carries little text and a URL path segment is the strongest signal of what a page is about.
 *
 * Per distinct query token, each field contributes its weight times the match quality (exact
 * token 1, shared prefix of at least 3 characters 0.5). Then:
 *  - coverage: a link matching every query token beats one matching a single token repeatedly;
 *  - phrase: the whole query appearing in order in the title, path or description;
 *  - last segment: the path's final segment matching the query exactly (`/pricing` for "pricing")
 *    ranks the page itself above pages that merely mention it (`/blog/pricing-update`).
 * Links that match nothing keep their original order after the ones that do; equal scores keep
 * input order (stable), so results are deterministic.
 *
 * Pure: no I/O.
 */
import { queryTokens, safeDecode, tokenize } from './tokens.js';

export interface RankableLink {
  url: string;
  title?: string;
  description?: string;
}

const WEIGHT = { path: 3, title: 2.5, host: 1, description: 1 } as const;
const COVERAGE_BONUS = 3;
const PHRASE_BONUS = { title: 4, path: 4, description: 2 } as const;
const LAST_SEGMENT_BONUS = 3;
const PARTIAL_MATCH = 0.5;
const MIN_PREFIX = 3;

interface LinkFields {
  path: string[];
  lastSegment: string[];
  host: string[];
  title: string[];
  description: string[];
}

function fieldsOf(link: RankableLink): LinkFields {
  let pathname: string;
  let hostname = '';
  try {
    const parsed = new URL(link.url);
    pathname = safeDecode(parsed.pathname);
    hostname = parsed.hostname;
  } catch {
    pathname = link.url;
  }
  const segments = pathname.split('/').filter((segment) => segment !== '');
  // Only the labels a person would search for: not www, not the public suffix.
  const hostLabels = hostname.split('.').filter((label) => label !== 'www').slice(0, -1);
  return {
    path: tokenize(pathname),
    lastSegment: tokenize((segments.at(-1) ?? '').replace(/\.[a-z0-9]+$/i, '')),
    host: hostLabels.flatMap(tokenize),
    title: tokenize(link.title ?? ''),
    description: tokenize(link.description ?? ''),
  };
}

function matchQuality(token: string, field: readonly string[]): number {
  let best = 0;
  for (const word of field) {
    if (word === token) return 1;
    const shorter = word.length < token.length ? word : token;
    const longer = shorter === word ? token : word;
    if (shorter.length >= MIN_PREFIX && longer.startsWith(shorter)) best = PARTIAL_MATCH;
  }
  return best;
}

function containsPhrase(field: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length < 2 || field.length < phrase.length) return false;
  return ` ${field.join(' ')} `.includes(` ${phrase.join(' ')} `);
}

function score(fields: LinkFields, tokens: readonly string[]): number {
  let total = 0;
  let matched = 0;
  for (const token of tokens) {
    const tokenScore =
      WEIGHT.path * matchQuality(token, fields.path) +
      WEIGHT.title * matchQuality(token, fields.title) +
      WEIGHT.host * matchQuality(token, fields.host) +
      WEIGHT.description * matchQuality(token, fields.description);
    if (tokenScore > 0) matched++;
    total += tokenScore;
  }
  if (matched === 0) return 0;
  total += COVERAGE_BONUS * (matched / tokens.length);
  if (containsPhrase(fields.title, tokens)) total += PHRASE_BONUS.title;
  if (containsPhrase(fields.path, tokens)) total += PHRASE_BONUS.path;
  if (containsPhrase(fields.description, tokens)) total += PHRASE_BONUS.description;
  if (fields.lastSegment.join(' ') === tokens.join(' ')) total += LAST_SEGMENT_BONUS;
  return total;
}

/** The links reordered best match first; an empty query returns them unchanged. */
export function rankBySearch<T extends RankableLink>(links: readonly T[], query: string): T[] {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return [...links];
  return links
    .map((link, index) => ({ link, index, score: score(fieldsOf(link), tokens) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ link }) => link);
}
