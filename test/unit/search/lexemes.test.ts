/** The search index's words (lib/search/lexemes.ts): what a word is, Postgres's limits, and the query text. */
import { describe, expect, it } from 'vitest';
import { queryText, tsvectorLiteral, words } from '../../../lib/search/lexemes.js';

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

describe('queryText', () => {
  it('reduces a query to the index words, keeping quotes, or and a leading minus', () => {
    expect(queryText('E-Mail "Setup v2.1" OR help@example.com -spam')).toBe('e mail "setup v2 1" or help example com -spam');
    expect(queryText('"unbalanced -- or & |')).toBe('"unbalanced  or  ');
    expect(queryText('a-b -c-d')).toBe('a b -c d');
  });
});
