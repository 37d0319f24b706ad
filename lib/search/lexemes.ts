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
// most 256 kept per lexeme, and a tsvector's data under 1 MB.
const MAX_LEXEME_BYTES = 2047;
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 256;
const MAX_DATA_BYTES = (1 << 20) - 1;

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
 * A word's positions in weighted fields, numbered as `setweight(to_tsvector(a), 'A') ||
 * setweight(to_tsvector(b), 'B') || …` numbers them: each field's positions follow the last of
 * the field before it. Each position is stored as Postgres stores it (WordEntryPos): the position
 * in the low 14 bits, the weight in the top two (A 3, B 2, C 1).
 */
type Lexemes = Map<string, number[]>;

function lexemes(fields: readonly { text: string; weight: Weight }[]): Lexemes {
  const found: Lexemes = new Map();
  // What tsvectorrecv counts against its 1 MB, which is more than the text input counts: each
  // lexeme's bytes, its alignment and (1 + positions) × 4 bytes.
  let dataBytes = 0;
  let offset = 0;
  for (const { text, weight } of fields) {
    const list = words(text);
    const tag = WEIGHT_BITS[weight];
    for (let i = 0; i < list.length; i++) {
      const word = list[i]!;
      let entry = found.get(word);
      if (!entry) {
        const bytes = Buffer.byteLength(word) + 1 + 4;
        if (dataBytes + bytes > MAX_DATA_BYTES) continue;
        dataBytes += bytes;
        found.set(word, (entry = []));
      }
      const position = Math.min(offset + i + 1, MAX_POSITION);
      if (entry.length >= MAX_POSITIONS_PER_LEXEME) continue;
      // Past the last position every word stands at it, once.
      if (entry.length > 0 && (entry[entry.length - 1]! & MAX_POSITION) === position) continue;
      if (dataBytes + 4 > MAX_DATA_BYTES) continue;
      dataBytes += 4;
      entry.push(position | tag);
    }
    offset = Math.min(offset + list.length, MAX_POSITION);
  }
  return found;
}

const WEIGHT_BITS: Record<Weight, number> = { A: 3 << 14, B: 2 << 14, C: 1 << 14 };
const WEIGHT_LETTERS = ['D', 'C', 'B', 'A'] as const;

/**
 * The `tsvector` of weighted fields in the binary form Postgres's `tsvectorrecv` reads: sent as a
 * binary parameter (node-postgres sends a Buffer so), Postgres copies it in. The text literal it
 * replaced cost Postgres 0.6 ms per crawled page to parse, and was 60 % longer on the wire.
 * Entries go in the order words were found; Postgres sorts them, as it sorts a literal's.
 */
export function tsvectorBinary(fields: readonly { text: string; weight: Weight }[]): Buffer {
  const found = lexemes(fields);
  let bound = 4;
  for (const [word, positions] of found) bound += word.length * 3 + 3 + 2 * positions.length;
  const out = Buffer.allocUnsafe(bound);
  out.writeInt32BE(found.size, 0);
  let at = 4;
  for (const [word, positions] of found) {
    // Words are letters, marks and digits: no NUL ends one early.
    at += out.write(word, at);
    out[at++] = 0;
    at = out.writeUInt16BE(positions.length, at);
    for (let i = 0; i < positions.length; i++) at = out.writeUInt16BE(positions[i]!, at);
  }
  return out.subarray(0, at);
}

/** The same `tsvector` as a text literal, for statements that send many in one text array. */
export function tsvectorLiteral(fields: readonly { text: string; weight: Weight }[]): string {
  const parts: string[] = [];
  // Words hold no quote or backslash (they are letters, marks and digits), so they need no escaping.
  for (const [word, positions] of lexemes(fields)) {
    parts.push(`'${word}':${positions.map((p) => `${p & MAX_POSITION}${WEIGHT_LETTERS[p >> 14]}`).join(',')}`);
  }
  return parts.join(' ');
}

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
