/** Content hashes Trawl reports (metadata.contentHash, rawHash): SHA-256, lower-case hex. */
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
