import type { Db } from '../db/connect.js';
import type { ProxyRoutes } from '../scraper/net/proxy-routes.js';
import type { BrowserPool } from '../browser/browser-pool.js';
import type { ModelClient } from '../llm/model-client.js';

/** What activities need from the outside world; built only in worker/. */
export interface ActivityDeps {
  db: Db;
  browser: BrowserPool;
  allowPrivateNetwork: boolean;
  /** Upstream proxy pools for page fetches. @default direct connections */
  proxies?: ProxyRoutes;
  /** The language model, when one is configured (llm/model-client.ts). */
  llm?: ModelClient;
  /** MEDIA_RETENTION_HOURS, for the purge. @default 24 */
  mediaRetentionHours?: number;
}
