/** Browser profile names: what Postgres text can hold, within Firecrawl's 1–128 characters. */
import { describe, expect, it } from 'vitest';
import { browserProfileSchema } from '../../../contracts/browser-profile.js';

describe('browser profile names', () => {
  it('take 1–128 printable characters, and saveChanges defaults to true as in Firecrawl', () => {
    expect(browserProfileSchema.parse({ name: 'shop-ü 1' })).toEqual({ name: 'shop-ü 1', saveChanges: true });
    expect(browserProfileSchema.safeParse({ name: 'x'.repeat(128) }).success).toBe(true);
  });

  it.each([['empty', ''], ['too long', 'x'.repeat(129)], ['a NUL', 'a\u0000b'], ['a newline', 'a\nb'], ['DEL', 'a\u007fb']])('refuse a name that is %s', (_what, name) => {
    expect(browserProfileSchema.safeParse({ name }).success).toBe(false);
  });

  it('refuse unknown keys', () => {
    expect(browserProfileSchema.safeParse({ name: 'a', persist: true }).success).toBe(false);
  });
});
