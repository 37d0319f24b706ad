/** Free local ports, for the servers the worker, `npm start` and the tests start: shared by worker/ and scripts/, which may not import each other. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** True when nothing listens on `host:port`, so a server we start there is the one that answers. */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export async function assertPortFree(host: string, port: number, what: string, hint: string): Promise<void> {
  if (!(await isPortFree(host, port))) {
    throw new Error(`${what}: port ${port} on ${host} is already in use. ${hint}`);
  }
}

/**
 * A port free right now on `host`, taken from below the kernel's ephemeral range. A port the OS
 * hands out for `listen(0)` lies inside that range, and so do the ports it gives a Temporal dev
 * server's own services and every outgoing connection's local end: one of them could take it
 * between our check and our server's listen (CI saw the API fail with EADDRINUSE so). Below the
 * range only another explicit choice like this one competes, and each is checked before it is used.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  const ceiling = ephemeralRangeStart();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST_CHOSEN_PORT + Math.floor(Math.random() * (ceiling - LOWEST_CHOSEN_PORT));
    if (await isPortFree(host, port)) return port;
  }
  throw new Error(`No free port on ${host} between ${LOWEST_CHOSEN_PORT} and ${ceiling - 1} in 50 tries`);
}

/** Above the well-known services (Postgres, Redis, RabbitMQ, Temporal's 7233 and 8233). */
const LOWEST_CHOSEN_PORT = 10_000;

/** Linux's default start when the range cannot be read (another OS, a locked-down /proc). */
const DEFAULT_EPHEMERAL_START = 32_768;

/** The lowest port the kernel hands out by itself (listen(0), outgoing connections). */
export function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return start > LOWEST_CHOSEN_PORT + 1_000 ? start : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}
