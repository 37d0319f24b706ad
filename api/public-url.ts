import type { Request } from 'express';
import type { Config } from '../lib/config.js';

/**
 * The base URL clients reached us at: PUBLIC_URL when set, else the request's own scheme and host.
 * `req.host` (not the Host header) so X-Forwarded-Host from a trusted proxy is honoured.
 */
export function publicBaseUrl(req: Request, config: Readonly<Config>): string {
  return config.api.publicUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.host}`;
}
