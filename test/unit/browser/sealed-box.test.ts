/** Browser profiles at rest: AES-256-GCM, bound to their owner. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { open, parseSealKey, seal } from '../../../lib/sealed-box.js';

const key = randomBytes(32);

describe('sealed boxes', () => {
  it('open with the key and context they were sealed with, and hide the plaintext', () => {
    const box = seal(key, 'team-a/p', Buffer.from('{"cookies":[{"name":"session","value":"abc123"}]}'));
    expect(box.toString('latin1')).not.toContain('abc123');
    expect(open(key, 'team-a/p', box).toString()).toContain('abc123');
  });

  it('refuse another key, another context (another team), and a changed byte', () => {
    const box = seal(key, 'team-a/p', Buffer.from('secret'));
    expect(() => open(randomBytes(32), 'team-a/p', box)).toThrow();
    expect(() => open(key, 'team-b/p', box)).toThrow();
    const changed = Buffer.from(box);
    changed[changed.length - 1]! ^= 1;
    expect(() => open(key, 'team-a/p', changed)).toThrow();
  });

  it('takes a key as 64 hex digits or base64 of 32 bytes, nothing else', () => {
    expect(parseSealKey('ab'.repeat(32))).toHaveLength(32);
    expect(parseSealKey(key.toString('base64'))).toEqual(key);
    expect(() => parseSealKey('too-short')).toThrow(/32 bytes/);
  });
});
