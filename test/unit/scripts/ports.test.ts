/**
 * Ports chosen for child servers: free, and outside the range the kernel hands out on its own, so
 * no port-0 bind or outgoing connection takes one before its server listens.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRangeStart, findFreePort, isPortFree } from '../../../lib/ports.js';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => resolve(server));
  });
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

describe('findFreePort', () => {
  it('chooses free ports below the ephemeral range', async () => {
    const start = ephemeralRangeStart();
    const ports = await Promise.all(Array.from({ length: 20 }, () => findFreePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(start);
      expect(await isPortFree('127.0.0.1', port)).toBe(true);
    }
  });

  it('keeps clear of the ports the kernel gives listeners and outgoing connections', async () => {
    const listener = await listen(0);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const socket = connect(portOf(listener), '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        sockets.push(socket);
      }
      const taken = new Set([portOf(listener), ...sockets.map((s) => s.localPort)]);
      // The kernel's own choices all lie inside the range findFreePort keeps out of.
      for (const port of taken) expect(port).toBeGreaterThanOrEqual(ephemeralRangeStart());
      for (let i = 0; i < 50; i++) expect(taken.has(await findFreePort())).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
