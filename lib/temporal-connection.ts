/**
 * How the API, the workers and the admin CLI reach Temporal: an address, and for Temporal Cloud or
 * a secured self-hosted cluster, TLS (with a client certificate for mTLS, a private CA, a server
 * name override) and an API key. One function builds the options both the client's Connection and
 * the worker's NativeConnection take, so the two can never be configured apart.
 */
import { readFileSync } from 'node:fs';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  tls: {
    /** TEMPORAL_TLS: true/false forces TLS on or off; unset turns it on when anything below asks for it. */
    enabled?: boolean;
    /** PEM files: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (mTLS, together), TEMPORAL_TLS_CA. */
    certPath?: string;
    keyPath?: string;
    caPath?: string;
    /** TEMPORAL_TLS_SERVER_NAME: the name the server's certificate is checked against (SNI). */
    serverName?: string;
  };
  /** TEMPORAL_API_KEY: sent as `Authorization: Bearer …` (Temporal Cloud API keys). */
  apiKey?: string;
}

/** The shape of @temporalio/common's TLSConfig, which lib/ does not import. */
export interface TemporalTls {
  serverNameOverride?: string;
  serverRootCACertificate?: Uint8Array;
  clientCertPair?: { crt: Uint8Array; key: Uint8Array };
}

export interface TemporalConnectionOptions {
  address: string;
  /** Absent: plain gRPC. `true`: TLS with the system's roots and no client certificate. */
  tls?: TemporalTls | true;
  apiKey?: string;
}

/** Reads a PEM file; a file that cannot be read fails start-up with its variable's name. */
type ReadFile = (path: string) => Uint8Array;

export function temporalConnectionOptions(settings: TemporalSettings, readFile: ReadFile = readFileSync): TemporalConnectionOptions {
  const { tls, apiKey, address } = settings;
  const read = (variable: string, path: string): Uint8Array => {
    try {
      return readFile(path);
    } catch (err) {
      throw new Error(`${variable}=${path} cannot be read: ${(err as Error).message}`, { cause: err });
    }
  };
  const wantsTls = tls.certPath !== undefined || tls.caPath !== undefined || tls.serverName !== undefined || apiKey !== undefined;
  if (tls.enabled === false && (tls.certPath || tls.caPath || tls.serverName)) {
    throw new Error('TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT, TEMPORAL_TLS_CA and TEMPORAL_TLS_SERVER_NAME');
  }
  // An API key over plain gRPC is allowed only when asked for (a local proxy terminating TLS).
  const useTls = tls.enabled ?? wantsTls;
  const options: TemporalConnectionOptions = { address, ...(apiKey && { apiKey }) };
  if (!useTls) return options;
  const custom: TemporalTls = {
    ...(tls.serverName && { serverNameOverride: tls.serverName }),
    ...(tls.caPath && { serverRootCACertificate: read('TEMPORAL_TLS_CA', tls.caPath) }),
    ...(tls.certPath && tls.keyPath && { clientCertPair: { crt: read('TEMPORAL_TLS_CERT', tls.certPath), key: read('TEMPORAL_TLS_KEY', tls.keyPath) } }),
  };
  return { ...options, tls: Object.keys(custom).length > 0 ? custom : true };
}
