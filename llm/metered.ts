/**
 * A ModelClient that reports every call's tokens, including those of calls that failed after
 * the model answered (an answer that never matched the schema still cost its tokens).
 */
import { TrawlError } from '../lib/errors.js';
import type { ModelClient, TokenUsage } from './model-client.js';

export type UsageSink = (usage: TokenUsage) => Promise<void>;

/** `admit` runs before every call and throws to refuse it (a spent token quota). */
export function meteredModel(client: ModelClient, sink: UsageSink, admit?: () => Promise<void>): ModelClient {
  async function metered<T extends { usage: TokenUsage }>(call: () => Promise<T>): Promise<T> {
    await admit?.();
    try {
      const result = await call();
      await sink(result.usage);
      return result;
    } catch (err) {
      const usage = err instanceof TrawlError ? (err.details as { usage?: TokenUsage } | undefined)?.usage : undefined;
      if (usage) await sink(usage);
      throw err;
    }
  }
  return {
    model: client.model,
    generateText: (call) => metered(() => client.generateText(call)),
    generateJson<T>(call: Parameters<ModelClient['generateJson']>[0]) {
      return metered(() => client.generateJson<T>(call));
    },
    ping: (signal) => client.ping(signal),
  };
}
