/**
 * Noise-aware comparison for monitors: what changes on every load of a page without the page
 * changing. A monitor that reported each of these as `changed` would alert on every check, so its
 * checks compare the markdown with these masked; the diff they report is still of the real text.
 *
 * - timestamps: ISO times, clock times, written dates ("Nov 26, 2026", "26 November 2026",
 *   "2026-11-26", "11/26/2026") and relative times ("3 minutes ago", "just now");
 * - counters: a number next to a counting word ("1,234 views", "Visitors: 88", "12 people online");
 * - session tokens: UUIDs, long hex or base64-ish strings, and the values of session-like query
 *   parameters (sid, session, token, csrf, nonce, _t, cb, ts);
 * - rotating ads: paragraphs that announce themselves as ads ("Advertisement", "Sponsored", "Ad:"),
 *   and the paragraph after a label that stands alone.
 *
 * - prices, only when asked (a shop watched for its wording, not its prices): an amount next to a
 *   currency sign or code ("$19.99", "24,90 €", "EUR 12").
 *
 * Each is a category a block diff (block-diff.ts) can count as noise. Pure and line-oriented, so it
 * costs a few regex passes per check, not a parse. The patterns run on page text, so none of them
 * lets two quantifiers compete for the same characters: each matches in linear time.
 */

import { DEFAULT_NOISE, type NoiseCategory } from '../../contracts/change-detection.js';

export { DEFAULT_NOISE, type NoiseCategory };

const MASK = '\u2022';

const MONTHS = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const WEEKDAYS = '(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\\.?,?';

const TIMESTAMP_PATTERNS: RegExp[] = [
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/gi,
  /\b\d{4}-\d{2}-\d{2}\b/g,
  /\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/g,
  new RegExp(`\\b(?:${WEEKDAYS}\\s+)?${MONTHS}\\s+\\d{1,2}(?:st|nd|rd|th)?,?(?:\\s+\\d{4})?`, 'gi'),
  new RegExp(`\\b(?:${WEEKDAYS}\\s+)?\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTHS},?(?:\\s+\\d{4})?`, 'gi'),
  /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?:\s?(?:utc|gmt|[a-z]{2,4}t))?\b/gi,
  /\b(?:\d+|an?|one|a few)\s+(?:second|sec|minute|min|hour|hr|day|week|month|year)s?\s+ago\b/gi,
  /\b(?:just now|moments? ago|today|yesterday)\b/gi,
  /\b1[6-9]\d{8}(?:\d{3})?\b/g, // Unix epoch seconds or milliseconds (2020s-2030s)
];

const COUNTING_WORDS =
  '(?:views?|visitors?|visits|readers?|reads|plays|downloads|likes?|shares?|comments?|replies|followers?|subscribers?|votes?|points|stars?|clicks|impressions|people|users?|members?|online|watching|viewing|in stock|left|sold|reviews?|ratings?)';

const COUNTER_PATTERNS: RegExp[] = [
  // A space inside the number only before another digit, so it never competes with the `\\s+` after it.
  new RegExp(`\\b\\d(?:[\\d,.]|\\s(?=\\d))*[kmb]?\\+?\\s+${COUNTING_WORDS}\\b`, 'gi'),
  new RegExp(`\\b${COUNTING_WORDS}\\s*[:=]?\\s*\\d[\\d,.]*[kmb]?\\b`, 'gi'),
];

const TOKEN_PATTERNS: RegExp[] = [
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /([?&;](?:sid|session(?:id)?|phpsessid|jsessionid|token|csrf(?:_token)?|nonce|_t|cb|ts|cachebuster|rnd|rand)=)[^&)\s"']+/gi,
  // 20+ characters of letters and digits mixed (a token), never a plain word or number.
  /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}\b/g,
];

const PRICE_PATTERNS: RegExp[] = [
  /[$€£¥₹]\s?\d[\d,.]*/g,
  /\b\d[\d,.]*\s?(?:[$€£¥₹]|usd|eur|gbp|chf|jpy)\b/gi,
  /\b(?:usd|eur|gbp|chf|jpy)\s?\d[\d,.]*/gi,
];

const AD_PARAGRAPH = /^[*_#>\s-]*(?:advertisement|sponsored(?: content| by)?|promoted|ad|ads by \S+)\b\s*[:\-–—|·]?/i;
/** A label alone ("Advertisement"): the ad is the paragraph after it. */
const AD_LABEL = /^[\s*_#>-]*(?:advertisement|sponsored(?: content)?|promoted|ad|ads)[\s*_:.-]*$/i;

/** `text` with the noise of `categories` masked: two loads that differ only in it mask equal. */
export function maskNoise(text: string, categories: readonly NoiseCategory[]): string {
  let masked = text;
  if (categories.includes('tokens')) masked = TOKEN_PATTERNS.reduce((t, re) => t.replace(re, (_m, prefix?: string) => (typeof prefix === 'string' ? `${prefix}${MASK}` : MASK)), masked);
  if (categories.includes('dates')) masked = TIMESTAMP_PATTERNS.reduce((t, re) => t.replace(re, MASK), masked);
  if (categories.includes('counters')) masked = COUNTER_PATTERNS.reduce((t, re) => t.replace(re, (m) => m.replace(/\d[\d,.]*[kmb]?/gi, MASK)), masked);
  if (categories.includes('prices')) masked = PRICE_PATTERNS.reduce((t, re) => t.replace(re, MASK), masked);
  return masked.replace(/[ \t]+/g, ' ');
}

/**
 * Which of a page's paragraphs are ads: one that announces itself as an ad, a label standing
 * alone ("Advertisement"), and the paragraph after such a label.
 */
export function adParagraphs(paragraphs: readonly string[]): boolean[] {
  return paragraphs.map((text, i) => AD_PARAGRAPH.test(text) || AD_LABEL.test(text) || (i > 0 && AD_LABEL.test(paragraphs[i - 1]!)));
}
