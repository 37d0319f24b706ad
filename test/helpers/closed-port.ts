import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** A loopback port nothing listens on: bound, read, and closed again. */
export async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
