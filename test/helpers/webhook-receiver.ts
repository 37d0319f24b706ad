/** Collects webhook deliveries, with their raw bytes so signatures can be checked. */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface Delivery {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: { type: string; id: string; success: boolean; data: any[]; metadata?: unknown; webhookId?: string; error?: string };
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Resolves once a delivery of this type has arrived. */
  waitFor(type: string, timeoutMs?: number): Promise<Delivery>;
  close(): Promise<void>;
}

/** `delayMs` holds each answer back, so a delivery can be in flight when its sender dies. */
export async function startWebhookReceiver(options: { delayMs?: number } = {}): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) });
      setTimeout(() => res.writeHead(200).end('ok'), options.delayMs ?? 0);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    waitFor: async (type, timeoutMs = 60_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = deliveries.find((d) => d.body.type === type);
        if (found) return found;
        if (Date.now() > until) throw new Error(`no ${type} webhook within ${timeoutMs} ms; got ${deliveries.map((d) => d.body.type).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * A receiver for the enclosing `describe` block: started before its tests, closed after them.
 * Read its fields inside tests only; it exists once the block's `beforeAll` has run.
 */
export function useWebhookReceiver(): Omit<WebhookReceiver, 'close'> {
  let started: WebhookReceiver | undefined;
  beforeAll(async () => {
    started = await startWebhookReceiver();
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): WebhookReceiver => {
    if (!started) throw new Error('the webhook receiver is only there inside the tests of its describe block');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get deliveries() {
      return current().deliveries;
    },
    waitFor: (type, timeoutMs) => current().waitFor(type, timeoutMs),
  };
}
