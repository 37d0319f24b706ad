/**
 * TEMPORAL_TLS_* against a real Temporal server behind mTLS. The CLI's dev server speaks plain
 * gRPC only, so a TLS terminator in this file stands in front of it, as a load balancer would in
 * front of a secured cluster: it requires a client certificate signed by the test CA and serves a
 * certificate for `temporal.test`, reachable only with TEMPORAL_TLS_SERVER_NAME. Both connection
 * kinds Trawl uses are tried: the client's (API, admin CLI) and the worker's native one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config.js';
import { findFreePort } from '../../../lib/ports.js';
import { temporalConnectionOptions } from '../../../lib/temporal-connection.js';
import { findOrBuildTemporalCli } from '../../../scripts/temporal-cli.js';
import { startTemporalServer, type TemporalServer } from '../../../scripts/temporal-server.js';

let dir: string;
let temporal: TemporalServer;
let terminator: Server;
let address: string;
/** Client certificates the terminator accepted, by subject CN. */
const accepted: string[] = [];

/** A CA, and a server and a client certificate it signed, as PEM files in `dir`. */
function makeCertificates(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Trawl test CA', '-keyout', 'ca.key', '-out', 'ca.pem');
  for (const [name, cn] of [['server', 'temporal.test'], ['client', 'trawl-worker']] as const) {
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=DNS:${cn}\nbasicConstraints=CA:FALSE\n`);
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-temporal-tls-'));
  makeCertificates();
  temporal = await startTemporalServer({
    cliPath: await findOrBuildTemporalCli({ log: () => {} }),
    port: await findFreePort(),
    dataDir: dir,
    log: () => {},
  });
  const read = (file: string) => readFileSync(join(dir, file));
  terminator = createTlsServer(
    { key: read('server.key'), cert: read('server.pem'), ca: read('ca.pem'), requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] },
    (socket) => {
      accepted.push(String(socket.getPeerCertificate().subject?.CN));
      const upstream = connect(Number(temporal.address.split(':')[1]), '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    },
  );
  const port = await findFreePort();
  await new Promise<void>((resolve) => terminator.listen(port, '127.0.0.1', resolve));
  address = `127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  terminator?.close();
  await temporal?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  TEMPORAL_ADDRESS: address,
  TEMPORAL_TLS_CA: join(dir, 'ca.pem'),
  TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
  ...extra,
});

describe('Temporal over mTLS', () => {
  it('connects the client and the worker with the client certificate, the CA and the server name', async () => {
    const options = temporalConnectionOptions(
      loadConfig(env({ TEMPORAL_TLS_CERT: join(dir, 'client.pem'), TEMPORAL_TLS_KEY: join(dir, 'client.key') })).temporal,
    );
    const client = await Connection.connect({ ...options, connectTimeout: 10_000 });
    try {
      const info = await client.workflowService.getSystemInfo({});
      expect(info.capabilities).toBeDefined();
    } finally {
      await client.close();
    }
    const native = await NativeConnection.connect(options);
    try {
      const info = await native.workflowService.getSystemInfo({});
      expect(info.capabilities).toBeDefined();
    } finally {
      await native.close();
    }
    expect(accepted).toContain('trawl-worker');
  });

  it('is refused without a client certificate', async () => {
    const options = temporalConnectionOptions(loadConfig(env()).temporal);
    await expect(
      Connection.connect({ ...options, connectTimeout: 3_000 }).then((c) => c.workflowService.getSystemInfo({}).finally(() => c.close())),
    ).rejects.toThrow();
  });
});
