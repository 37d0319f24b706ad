import { createHash } from 'node:crypto';

/** The same id for the same check and target on every attempt, so a retried activity creates each job once. */
export function jobIdFor(checkId: string, targetId: string): string {
  const hex = createHash('sha256').update(`${checkId}/${targetId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
