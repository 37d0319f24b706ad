import { describe, expect, it } from 'vitest';
import { findBodyProblem, MAX_BODY_DEPTH } from '../../../api/middleware/body-scan.js';

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe('findBodyProblem', () => {
  it('accepts ordinary text, surrogate pairs (emoji) and other control characters', () => {
    expect(findBodyProblem({ a: ['héllo 😀', '\t\n\u0001', ''], b: { c: 1, d: null, e: true } })).toBeUndefined();
  });

  it.each([
    ['NUL', { a: 'x\u0000y' }, 'a', /NUL/],
    ['a lone high surrogate at the end', { a: ['ok', 'x\ud83d'] }, 'a.1', /surrogate/],
    ['a lone low surrogate', { a: '\ude00x' }, 'a', /surrogate/],
    ['reversed pair', { a: '\ude00\ud83d' }, 'a', /surrogate/],
    ['a key', { ['k\ud800']: 1 }, 'k\\ud800', /key .*surrogate/],
  ])('finds %s', (_name, body, path, message) => {
    const problem = findBodyProblem(body);
    expect(problem?.path).toBe(path);
    expect(problem?.message).toMatch(message);
  });

  it('allows exactly MAX_BODY_DEPTH levels below the body and refuses one more', () => {
    expect(findBodyProblem(nested(MAX_BODY_DEPTH))).toBeUndefined();
    expect(findBodyProblem(nested(MAX_BODY_DEPTH + 1))?.message).toMatch(/nested deeper than 64/);
  });

  it('walks a 100,000-deep value without overflowing the stack', () => {
    expect(findBodyProblem({ m: nested(100_000) })?.path).toMatch(/^m(\.0)+$/);
  });

  it('reports the body itself as (body)', () => {
    expect(findBodyProblem('\u0000')?.path).toBe('(body)');
  });
});
