/**
 * `redactPII`: deterministic redaction of what a pattern can find for sure, with Firecrawl's
 * options (`entities`, `replaceStyle`; its `mode` picks among its models, and Trawl has one way).
 *
 * | Firecrawl entity | found here |
 * |---|---|
 * | EMAIL | e-mail addresses |
 * | PHONE | phone numbers: 7 to 15 digits written as one (a leading `+`, or separated groups); dates and IP addresses are not |
 * | FINANCIAL | card numbers (13 to 19 digits passing the Luhn check) and IBANs (valid by their mod-97 check digits) |
 * | LOCATION | IP addresses (v4, and v6 with three groups or more): what locates a person online. Street addresses are not found |
 * | PERSON, SECRET | nothing: names and secrets need a model. `unfound` lists them, for the caller's warning |
 *
 * Matching runs on RE2 (re2js), in time linear in the text: pages are adversarial, and V8's
 * backtracking took 75 s on an e-mail-shaped pattern over 200,000 letters. Check digits are then
 * verified in code. The replacement is idempotent: redacting twice changes nothing more.
 */
import ipaddr from 'ipaddr.js';
import { RE2JS } from 're2js';
import { PII_ENTITIES, type PiiEntity, type RedactPiiOptions as RedactionOptions } from '../../contracts/scrape-options.js';

/** Entities asked for that this redactor cannot find (see the table above). */
export function unfoundEntities(options: RedactionOptions): PiiEntity[] {
  return (options.entities ?? PII_ENTITIES).filter((e) => e === 'PERSON' || e === 'SECRET');
}

type Kind = 'email' | 'iban' | 'card' | 'ipv4' | 'ipv6' | 'phone';

const ENTITY_OF: Record<Kind, PiiEntity> = {
  email: 'EMAIL',
  iban: 'FINANCIAL',
  card: 'FINANCIAL',
  ipv4: 'LOCATION',
  ipv6: 'LOCATION',
  phone: 'PHONE',
};

/**
 * One alternation, tried left to right at each position, so the more specific shapes win: an
 * IBAN's digits are not read as a card or a phone, nor an IP address as a phone.
 */
const KINDS: readonly Kind[] = ['email', 'iban', 'card', 'ipv4', 'ipv6', 'phone'];
const PATTERN = RE2JS.compile(
  [
    String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`,
    String.raw`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`,
    String.raw`\b[0-9](?:[ -]?[0-9]){12,18}\b`,
    String.raw`\b[0-9]{1,3}(?:\.[0-9]{1,3}){3}\b`,
    String.raw`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}`,
    String.raw`(?:\+[0-9]|\([0-9]|\b[0-9])[0-9 ().-]{5,22}[0-9]\b`,
  ]
    .map((p) => `(${p})`)
    .join('|'),
);

export interface Redactor {
  /** `text` with every span of an asked entity replaced; `html` escapes a tag so it stays text. */
  redact(text: string, html?: boolean): string;
}

export function createRedactor(options: RedactionOptions): Redactor {
  const wanted = new Set<PiiEntity>(options.entities ?? PII_ENTITIES);
  const replace = (span: string, entity: PiiEntity, html: boolean): string => {
    if (options.replaceStyle === 'remove') return '';
    if (options.replaceStyle === 'mask') return '*'.repeat(span.length);
    return html ? `&lt;${entity}&gt;` : `<${entity}>`;
  };
  return {
    redact(text, html = false) {
      if (text === '') return text;
      const matcher = PATTERN.matcher(text);
      let out = '';
      let last = 0;
      while (matcher.find()) {
        const kind = KINDS.find((_k, i) => matcher.group(i + 1) !== null);
        const span = matcher.group();
        if (!kind || !span) continue;
        const start = matcher.start();
        const end = matcher.end();
        if (!wanted.has(ENTITY_OF[kind]) || !isReal(kind, span, text, start, end)) continue;
        out += text.slice(last, start) + replace(span, ENTITY_OF[kind], html);
        last = end;
      }
      return last === 0 ? text : out + text.slice(last);
    },
  };
}

const ISO_DATE = /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}$|^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/;
const THOUSANDS = /^\d{1,3}(?:[.,]\d{3})+$/;

/** The checks a pattern cannot make: check digits, ranges, and what a phone number is not. */
function isReal(kind: Kind, span: string, text: string, start: number, end: number): boolean {
  switch (kind) {
    case 'email':
      return true;
    case 'iban':
      return ibanValid(span.replaceAll(' ', ''));
    case 'card':
      return luhnValid(span.replace(/[ -]/g, ''));
    case 'ipv4':
      return span.split('.').every((octet) => Number(octet) <= 255);
    case 'ipv6': {
      // Not part of a longer word (`std::vector`), three groups or more, and a valid address.
      const before = text[start - 1] ?? ' ';
      const after = text[end] ?? ' ';
      if (/[0-9A-Za-z:]/.test(before) || /[0-9A-Za-z:]/.test(after)) return false;
      return span.split(':').filter((g) => g !== '').length >= 3 && ipaddr.IPv6.isValid(span);
    }
    case 'phone': {
      const digits = span.replace(/\D/g, '');
      if (digits.length < 7 || digits.length > 15) return false;
      const trimmed = span.trim();
      if (ISO_DATE.test(trimmed) || THOUSANDS.test(trimmed)) return false;
      // A bare run of digits is a number, not a number to call, unless it has a country code.
      return trimmed.startsWith('+') || /[ ().-]/.test(trimmed);
    }
  }
}

function luhnValid(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: the country and check digits moved to the end, letters as 10–35, mod 97 is 1. */
function ibanValid(iban: string): boolean {
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of moved) {
    const value = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
