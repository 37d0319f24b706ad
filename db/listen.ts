import pg from 'pg';

export interface Listener {
  close(): Promise<void>;
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * LISTENs on `channel` over a connection of its own (a pooled one would lose the LISTEN when it
 * is handed out again) and calls `onPayload` for each NOTIFY. A lost connection is reopened with
 * backoff; what is notified in between is missed, so a notice may only ever be a shortcut to an
 * answer that can also be had without it.
 */
export function listen(
  databaseUrl: string,
  channel: string,
  onPayload: (payload: string) => void,
  onError: (err: Error) => void,
): Listener {
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = RETRY_FIRST_MS;
  let retry: NodeJS.Timeout | undefined;

  const reconnectLater = (failed: pg.Client) => {
    if (closed || client !== failed) return;
    client = undefined;
    failed.end().catch(() => undefined);
    retry = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  const connect = () => {
    const candidate = new pg.Client({ connectionString: databaseUrl });
    client = candidate;
    candidate.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) onPayload(n.payload);
    });
    candidate.on('error', (err) => {
      onError(err);
      reconnectLater(candidate);
    });
    candidate.on('end', () => reconnectLater(candidate));
    candidate
      .connect()
      .then(() => candidate.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
      .then(
        () => {
          retryMs = RETRY_FIRST_MS;
        },
        (err: Error) => {
          onError(err);
          reconnectLater(candidate);
        },
      );
  };

  connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
