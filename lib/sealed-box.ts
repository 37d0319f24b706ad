/**
 * AES-256-GCM with a server key, for what Trawl must keep but not read at rest (browser profiles'
 * cookies and storage). The sealed form is `iv (12) | tag (16) | ciphertext`; a changed byte or
 * another key fails to open rather than yielding garbage. `context` binds a box to its owner (a
 * team and profile name), so a row copied to another team does not open there either.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

function decodeKey(text: string): Buffer {
  return /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

/** Why `text` is not a key, or undefined when it is one. */
export function sealKeyProblem(text: string): string | undefined {
  return decodeKey(text).length === 32 ? undefined : 'must be 32 bytes, as 64 hex digits or base64';
}

/** A 32-byte key given as 64 hex digits or as base64. */
export function parseSealKey(text: string): Buffer {
  const problem = sealKeyProblem(text);
  if (problem) throw new Error(problem);
  return decodeKey(text);
}

export function seal(key: Buffer, context: string, plaintext: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Throws when the box was not sealed with this key and context, or was changed since. */
export function open(key: Buffer, context: string, box: Buffer): Buffer {
  if (box.length < IV_BYTES + TAG_BYTES) throw new Error('sealed box too short');
  const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(box.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(box.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
