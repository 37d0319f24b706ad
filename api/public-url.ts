import type { Request } from 'express';
import type { Config } from '../lib/config.js';

/** The base URL clients reached us at: PUBLIC_URL when set, else the request's own scheme and host. */
export function publicBaseUrl(req: Request, config: Readonly<Config>): string {
  return config.api.publicUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;
}
