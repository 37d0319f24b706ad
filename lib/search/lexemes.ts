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

const SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;

// Postgres's own limits (tsearch/ts_type.h): a lexeme under 2 KB, positions up to 16383 with at
// most 256 kept per lexeme, and the lexemes of one tsvector under 1 MB.
const MAX_LEXEME_BYTES = 2047;
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 256;
const MAX_LEXEME_TOTAL_BYTES = (1 << 20) - 1;

/** The words of `text`, in order, as the index and its queries see them. */
export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(SEPARATORS)
    .filter((w) => w !== '' && (w.length * 3 <= MAX_LEXEME_BYTES || Buffer.byteLength(w) <= MAX_LEXEME_BYTES));
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
  const negated = /^-+[\p{L}\p{M}\p{N}]/u.test(term);
  const rest = term.split(SEPARATORS).filter(Boolean).join(' ');
  return negated ? `-${rest}` : rest;
}
