/** Throwaway HTTP(S) servers on 127.0.0.1 for the network-layer tests. */
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { KeyPair } from '../../helpers/self-signed.js';

export interface LocalServer {
  /** `http(s)://127.0.0.1:PORT` without a trailing slash. */
  origin: string;
  port: number;
  /** Requests the server received. */
  hits(): number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function startLocalServer(handler: RequestListener, tls?: KeyPair): Promise<LocalServer> {
  let hits = 0;
  const counted: RequestListener = (req, res) => {
    hits++;
    handler(req, res);
  };
  const server: Server = tls ? createHttpsServer(tls, counted) : createServer(counted);
  // Servers that never answer keep sockets open; close() must not wait for them.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    hits: () => hits,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port that was free a moment ago, so connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
