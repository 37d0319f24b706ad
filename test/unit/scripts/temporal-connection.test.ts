/** TEMPORAL_* settings → the connection options the API, the workers and the admin CLI use (lib/temporal-connection.ts). */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config.js';
import { temporalConnectionOptions } from '../../../lib/temporal-connection.js';

const FILES: Record<string, string> = { '/s/client.pem': 'CERT', '/s/client.key': 'KEY', '/s/ca.pem': 'CA' };
const readFile = (path: string): Uint8Array => {
  const text = FILES[path];
  if (text === undefined) throw new Error('ENOENT: no such file');
  return new TextEncoder().encode(text);
};
const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);
const optionsFor = (env: Record<string, string>) => temporalConnectionOptions(loadConfig(env).temporal, readFile);

describe('Temporal connection options', () => {
  it('connects in plain gRPC to the address by default, in the namespace and task queue given', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'trawl-prod', TEMPORAL_TASK_QUEUE: 'q' });
    expect(config.temporal).toMatchObject({ address: 'temporal:7233', namespace: 'trawl-prod', taskQueue: 'q' });
    expect(temporalConnectionOptions(config.temporal, readFile)).toEqual({ address: 'temporal:7233' });
  });

  it('reads a client certificate and key for mTLS, with a private CA and a server name', () => {
    const options = optionsFor({
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_TLS_CERT: '/s/client.pem',
      TEMPORAL_TLS_KEY: '/s/client.key',
      TEMPORAL_TLS_CA: '/s/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(options.address).toBe('ns.acct.tmprl.cloud:7233');
    const tls = options.tls === true ? {} : options.tls!;
    expect(text(tls.clientCertPair?.crt)).toBe('CERT');
    expect(text(tls.clientCertPair?.key)).toBe('KEY');
    expect(text(tls.serverRootCACertificate)).toBe('CA');
    expect(tls.serverNameOverride).toBe('temporal.internal');
  });

  it('sends an API key over TLS with the system roots', () => {
    expect(optionsFor({ TEMPORAL_API_KEY: 'secret-key' })).toEqual({ address: '127.0.0.1:7233', apiKey: 'secret-key', tls: true });
  });

  it('turns TLS on or off when TEMPORAL_TLS says so', () => {
    expect(optionsFor({ TEMPORAL_TLS: 'true' }).tls).toBe(true);
    expect(optionsFor({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toEqual({ address: '127.0.0.1:7233', apiKey: 'k' });
    expect(() => optionsFor({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: '/s/ca.pem' })).toThrow(/TEMPORAL_TLS=false contradicts/);
  });

  it('refuses a certificate without its key, and names the variable of a file it cannot read', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CERT: '/s/client.pem' })).toThrow(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY: set both/);
    expect(() => optionsFor({ TEMPORAL_TLS_CA: '/s/missing.pem' })).toThrow('TEMPORAL_TLS_CA=/s/missing.pem cannot be read: ENOENT');
  });
});
