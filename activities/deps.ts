import type { Db } from '../db/connect.js';
import type { ProxyRoutes } from '../scraper/net/proxy-routes.js';
import type { BrowserPool } from '../browser/browser-pool.js';
import type { HtmlTransform } from '../scraper/html/transform-pool.js';
import type { ModelClient } from '../llm/model-client.js';
import type { SearchProvider } from './search/provider.js';
import type { Mailer } from './monitor/mailer.js';
import type { RiskClassifier } from './threat/classifier.js';
import type { LiveSessions } from './browser/live-sessions.js';

/** Where a worker counts the pages it scrapes (worker/telemetry.ts). */
export interface PageMetrics {
  observe(engine: string, outcome: 'completed' | 'failed', durationMs: number): void;
}

/** What activities need from the outside world; built only in worker/. */
export interface ActivityDeps {
  db: Db;
  browser: BrowserPool;
  allowPrivateNetwork: boolean;
  /** Upstream proxy pools for page fetches. @default direct connections */
  proxies?: ProxyRoutes;
  /** The worker's HTML conversion threads (scraper/html/transform-pool.ts). @default the calling thread */
  transformHtml?: HtmlTransform;
  /** The language model, when one is configured (llm/model-client.ts). */
  llm?: ModelClient;
  /** Where /search looks (activities/search/providers/registry.ts). @default the built-in index */
  search?: SearchProvider;
  /** Threat protection's classifier (activities/threat/classifier.ts); without one, mode normal meets the failure policy. */
  threatClassifier?: RiskClassifier;
  /** Page counts and durations for the worker's /metrics. */
  pageMetrics?: PageMetrics;
  /** RESULT_RETENTION_HOURS: the search index forgets pages scraped before it. @default 720 */
  resultRetentionHours?: number;
  /** MEDIA_RETENTION_HOURS, for the purge. @default 24 */
  mediaRetentionHours?: number;
  /** SMTP_URL's mailer, for monitors' email notifications (activities/monitor/email.ts). */
  mailer?: Mailer;
  /** The worker's live browser sessions (activities/browser/live-sessions.ts); without them it opens none. */
  liveSessions?: LiveSessions;
  /** BROWSER_PROFILE_KEY: seals browser profiles at rest; without it profiles are refused. */
  profileKey?: Buffer;
}
