/** lib/patterns/pii.ts: what is found, what is not mistaken for it, the three styles, and linear time. */
import { describe, expect, it } from 'vitest';
import { createRedactor, unfoundEntities } from '../../../lib/patterns/pii.js';

const tag = createRedactor({ mode: 'accurate', replaceStyle: 'tag' });

describe('redactPII', () => {
  it.each([
    ['e-mail addresses', 'Write to jane.doe+news@mail.example.co.uk today.', 'Write to <EMAIL> today.'],
    ['phone numbers with a country code', 'Call +44 20 7946 0958 now.', 'Call <PHONE> now.'],
    ['phone numbers in groups', 'Call (555) 123-4567 or 030 1234567.', 'Call <PHONE> or <PHONE>.'],
    ['card numbers that pass Luhn', 'Card 4111 1111 1111 1111 on file.', 'Card <FINANCIAL> on file.'],
    ['IBANs with valid check digits', 'Pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432.', 'Pay <FINANCIAL> or <FINANCIAL>.'],
    ['IPv4 and IPv6 addresses', 'From 203.0.113.9 and 2001:db8:85a3::8a2e:370:7334.', 'From <LOCATION> and <LOCATION>.'],
  ])('finds %s', (_what, text, redacted) => {
    expect(tag.redact(text)).toBe(redacted);
  });

  it.each([
    ['a card number failing Luhn', 'Order 4111 1111 1111 1112 shipped.'],
    ['an IBAN with wrong check digits', 'Ref DE00 3704 0044 0532 0130 00.'],
    ['dates, thousands and versions', 'On 2024-01-15 we sold 1.234.567 units of v1.2.3 in 2023.'],
    ['an out-of-range dotted quad', 'Build 999.1.1.1 is out.'],
    ['C++ scopes and short IPv6', 'Use std::vector; the link-local fe80::1 is not personal.'],
    ['a bare run of digits', 'Order number 5551234567.'],
  ])('leaves %s', (_what, text) => {
    expect(tag.redact(text)).toBe(text);
  });

  it('masks with asterisks of the same length, removes, and escapes a tag in HTML', () => {
    expect(createRedactor({ mode: 'fast', replaceStyle: 'mask' }).redact('a b@c.io z')).toBe('a ****** z');
    expect(createRedactor({ mode: 'fast', replaceStyle: 'remove' }).redact('a b@c.io z')).toBe('a  z');
    expect(tag.redact('<a href="mailto:b@c.io">mail</a>', true)).toBe('<a href="mailto:&lt;EMAIL&gt;">mail</a>');
  });

  it('redacts only the entities asked for, and names the ones it cannot find', () => {
    const emails = createRedactor({ mode: 'accurate', replaceStyle: 'tag', entities: ['EMAIL'] });
    expect(emails.redact('b@c.io, +1 555 123 4567, 203.0.113.9')).toBe('<EMAIL>, +1 555 123 4567, 203.0.113.9');
    expect(unfoundEntities({ mode: 'accurate', replaceStyle: 'tag' })).toEqual(['PERSON', 'SECRET']);
    expect(unfoundEntities({ mode: 'accurate', replaceStyle: 'tag', entities: ['EMAIL', 'SECRET'] })).toEqual(['SECRET']);
    expect(unfoundEntities({ mode: 'accurate', replaceStyle: 'tag', entities: ['PHONE'] })).toEqual([]);
  });

  it('changes nothing more the second time', () => {
    const text = 'Mail b@c.io, call +1 (555) 123-4567, card 4111111111111111, ip 10.0.0.1.';
    for (const style of ['tag', 'mask', 'remove'] as const) {
      const redactor = createRedactor({ mode: 'accurate', replaceStyle: style });
      const once = redactor.redact(text);
      expect(redactor.redact(once)).toBe(once);
    }
  });

  it('redacts 1 MB of input that makes a backtracking engine quadratic, within the test timeout', () => {
    // A run of local-part characters with no domain after it: a backtracking e-mail pattern retries
    // from every position. V8's RegExp took 0.9 s at 40,000 characters, growing with the square:
    // about 10 minutes here. The linear matcher makes one pass.
    // No stopwatch: the test's own timeout is the bound, so a slow or loaded machine cannot fail it.
    const hostile = 'a'.repeat(1_000_000) + '@';
    expect(tag.redact(hostile)).toBe(hostile);
  });
});
