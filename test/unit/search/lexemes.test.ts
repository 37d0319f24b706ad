/** The search index's words (lib/search/lexemes.ts): what a word is, Postgres's limits, and the query text. */
import { describe, expect, it } from 'vitest';
import { queryText, tsvectorBinary, tsvectorLiteral, words } from '../../../lib/search/lexemes.js';

describe('words', () => {
  it('are runs of letters, marks and digits, lower-cased in NFKC form', () => {
    expect(words('Send an e-mail to help@example.com: v2.1_beta!')).toEqual(['send', 'an', 'e', 'mail', 'to', 'help', 'example', 'com', 'v2', '1', 'beta']);
    expect(words('Ölfass naïve Ｃａｆé ﬁne x\u0301y — 日本語')).toEqual(['ölfass', 'naïve', 'café', 'fine', 'x\u0301y', '日本語']);
  });

  it('read a character outside the BMP whole: a letter joins its word, an emoji separates', () => {
    expect(words('a\u{20000}b c😀d 😀 \ud800x')).toEqual(['a\u{20000}b', 'c', 'd', 'x']);
    // NFKC: a mathematical letter is its plain letter.
    expect(words('𝒜lpha')).toEqual(['alpha']);
  });

  it('leave out a word Postgres could not index (2 KB or more)', () => {
    expect(words(`short ${'x'.repeat(2047)} ${'y'.repeat(2048)} ${'é'.repeat(1024)} end`)).toEqual(['short', 'x'.repeat(2047), 'end']);
  });
});

describe('tsvectorLiteral', () => {
  it('numbers each field after the one before and weights it', () => {
    expect(tsvectorLiteral([
      { text: 'Water bears', weight: 'A' },
      { text: '', weight: 'B' },
      { text: 'bears survive', weight: 'C' },
    ])).toBe("'water':1A 'bears':2A,3C 'survive':4C");
  });

  it('keeps positions within 16383 and at most 256 per word', () => {
    const literal = tsvectorLiteral([{ text: `${'w '.repeat(20_000)}last`, weight: 'C' }]);
    const [w, last] = literal.split(' ');
    expect(w!.split(',')).toHaveLength(256);
    expect(last).toBe("'last':16383C");
  });
});

describe('tsvectorBinary', () => {
  it("is tsvectorrecv's form: the count, then each word with its NUL, its position count and weighted positions", () => {
    const bytes = tsvectorBinary([
      { text: 'Bär', weight: 'A' },
      { text: 'bär x', weight: 'C' },
    ]);
    // The weight is in the top two bits of a position: A 3, C 1.
    expect([...bytes]).toEqual([0, 0, 0, 2, 0x62, 0xc3, 0xa4, 0x72, 0, 0, 2, 0xc0, 1, 0x40, 2, 0x78, 0, 0, 1, 0x40, 3]);
  });

  it('keeps one position for words past the last one', () => {
    const bytes = tsvectorBinary([{ text: `${'w '.repeat(16_383)}x x`, weight: 'C' }]);
    // w: 256 positions; x: 16383 once.
    expect(bytes.subarray(4 + 2 + 2 + 512)).toEqual(Buffer.from([0x78, 0, 0, 1, 0x40 | 0x3f, 0xff]));
  });
});

describe('queryText', () => {
  it('reduces a query to the index words, keeping quotes, or and a leading minus', () => {
    expect(queryText('E-Mail "Setup v2.1" OR help@example.com -spam')).toBe('e mail "setup v2 1" or help example com -spam');
    expect(queryText('"unbalanced -- or & |')).toBe('"unbalanced  or  ');
    expect(queryText('a-b -c-d')).toBe('a b -c d');
  });
});
