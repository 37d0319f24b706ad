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

/** A port the OS considers free right now on `host`. */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
