/** The service logger. Components take a child bound to their fields: `log.child({ jobId })`. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base });
}
