/**
 * The search index's words, cut where its pages are written instead of in Postgres.
 *
 * Postgres's text-search parser reads about 4 MB/s here: on a crawl's 20 KB pages `to_tsvector`
 * was 7 of the 16 ms of database CPU per page, in the one server every worker shares. The same
 * words cut in the worker and sent as a `tsvector` literal cost Postgres under 1 ms to read.
 *
 * A word is a run of letters, marks and digits, in NFKC form and lower case; everything else
 * separates words. Queries go through `queryText` first, so Postgres's parser, reading a query
 * made only of such words, quotes and `-` prefixes, finds the same words the index holds.
 */

/** Weights of the fields, as `setweight` names them: title, description, body. */
export type Weight = 'A' | 'B' | 'C';

// Postgres's own limits (tsearch/ts_type.h): a lexeme under 2 KB, positions up to 16383 with at
// most 256 kept per lexeme, and the lexemes of one tsvector under 1 MB.
const MAX_LEXEME_BYTES = 2047;
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 256;
const MAX_LEXEME_TOTAL_BYTES = (1 << 20) - 1;

/** The words of `text`, in order, as the index and its queries see them. */
export function words(text: string): string[] {
  const prepared = (NON_ASCII.test(text) ? text.normalize('NFKC') : text).toLowerCase();
  const found: string[] = [];
  // A scan by character code, not a split on \p{…} classes: this runs on every stored page, and
  // the regular expression took three times as long on the crawl's pages.
  let start = -1;
  for (let i = 0; i <= prepared.length; i++) {
    const code = i < prepared.length ? prepared.charCodeAt(i) : 32;
    const inWord = code < 128 ? ASCII_WORD[code] === 1 : isWordChar(prepared, i, code);
    if (inWord) {
      if (start < 0) start = i;
      // The low half of a surrogate pair belongs to the character its high half began.
      if (code >= 0xd800 && code <= 0xdbff) i++;
    } else if (start >= 0) {
      const word = prepared.slice(start, i);
      if (word.length * 3 <= MAX_LEXEME_BYTES || Buffer.byteLength(word) <= MAX_LEXEME_BYTES) found.push(word);
      start = -1;
    }
  }
  return found;
}

const NON_ASCII = /[\u0080-\uffff]/;
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) => (/[a-z0-9]/i.test(String.fromCharCode(c)) ? 1 : 0));
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const nonAsciiWordChars = new Map<number, boolean>();

function isWordChar(text: string, i: number, code: number): boolean {
  const point = code >= 0xd800 && code <= 0xdbff ? text.codePointAt(i)! : code;
  let known = nonAsciiWordChars.get(point);
  if (known === undefined) {
    known = WORD_CHAR.test(String.fromCodePoint(point));
    if (nonAsciiWordChars.size < 65_536) nonAsciiWordChars.set(point, known);
  }
  return known;
}

/**
 * The `tsvector` literal of weighted fields, numbered as `setweight(to_tsvector(a), 'A') ||
 * setweight(to_tsvector(b), 'B') || …` numbers them: each field's positions follow the last of
 * the field before it.
 */
export function tsvectorLiteral(fields: readonly { text: string; weight: Weight }[]): string {
  // Each position with its field's weight in the low two bits: the literal is built once, at the end.
  const positions = new Map<string, number[]>();
  let lexemeBytes = 0;
  let offset = 0;
  for (const { text, weight } of fields) {
    const list = words(text);
    const tag = WEIGHTS.indexOf(weight);
    for (let i = 0; i < list.length; i++) {
      const word = list[i]!;
      let entry = positions.get(word);
      if (!entry) {
        const bytes = Buffer.byteLength(word);
        if (lexemeBytes + bytes > MAX_LEXEME_TOTAL_BYTES) continue;
        lexemeBytes += bytes;
        positions.set(word, (entry = []));
      }
      if (entry.length < MAX_POSITIONS_PER_LEXEME) entry.push(Math.min(offset + i + 1, MAX_POSITION) * 4 + tag);
    }
    offset = Math.min(offset + list.length, MAX_POSITION);
  }
  let literal = '';
  // Words hold no quote or backslash (they are letters, marks and digits), so they need no escaping.
  for (const [word, entry] of positions) {
    literal += `${literal ? ' ' : ''}'${word}':`;
    for (let i = 0; i < entry.length; i++) literal += `${i ? ',' : ''}${entry[i]! >> 2}${WEIGHTS[entry[i]! & 3]}`;
  }
  return literal;
}

const WEIGHTS: readonly Weight[] = ['A', 'B', 'C'];

/**
 * A search query reduced to the index's words, keeping what `websearch_to_tsquery` reads as
 * syntax: double quotes, `or`, and `-` before a term.
 */
export function queryText(query: string): string {
  return query
    .normalize('NFKC')
    .toLowerCase()
    .split(/(")/)
    .map((part) => (part === '"' ? part : part.split(/\s+/).map(queryTerm).join(' ')))
    .join('');
}

function queryTerm(term: string): string {
  const rest = words(term).join(' ');
  return /^-+[\p{L}\p{M}\p{N}]/u.test(term) ? `-${rest}` : rest;
}
