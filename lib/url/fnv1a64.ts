/**
 * FNV-1a 64-bit, hand-written because `node:crypto` is not available in the Temporal workflow
 * sandbox. Not cryptographic: it keys URLs, it does not defend against chosen collisions.
 */

// FNV-1a 64-bit offset basis 0xcbf29ce484222325, split into 32-bit halves.
const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;
const TWO_POW_32 = 0x1_0000_0000;

/** UTF-8 bytes of the string, so the hash matches FNV-1a implementations in other languages. */
function utf8Bytes(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) {
      bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    } else {
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f),
      );
    }
  }
  return bytes;
}

/** 16 lower-case hex characters: FNV-1a 64-bit of the string's UTF-8 bytes. */
export function fnv1a64(text: string): string {
  let hi = OFFSET_HI;
  let lo = OFFSET_LO;
  for (const byte of utf8Bytes(text)) {
    lo = (lo ^ byte) >>> 0;
    // Multiply by the FNV prime 2^40 + 0x1b3 modulo 2^64 using exact doubles: every partial
    // product stays below 2^53. The 2^40 term only reaches the high half, as lo << 8.
    const low = lo * 0x1b3;
    const carry = Math.floor(low / TWO_POW_32);
    hi = (carry + hi * 0x1b3 + lo * 0x100) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}
