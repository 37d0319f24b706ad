/**
 * Process configuration, read from the environment once at start-up.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | DATABASE_URL | postgres://postgres@127.0.0.1:5432/trawl | Postgres, the system of record |
 * | DATABASE_PREPARED_STATEMENTS | true | keep the per-page statements prepared (db/prepared.ts); false behind a transaction-mode pooler older than PgBouncer 1.21 |
 * | TEMPORAL_ADDRESS | 127.0.0.1:7233 | Temporal frontend (npm start runs a dev server when unset) |
 * | TEMPORAL_NAMESPACE | default | Temporal namespace |
 * | TEMPORAL_TASK_QUEUE | trawl | task queue shared by the API and the workers |
 * | TEMPORAL_TLS | (on when any TLS setting or an API key is set) | `true`/`false` forces TLS to Temporal on or off |
 * | TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY | (none) | PEM files of a client certificate and its key, for mTLS (together) |
 * | TEMPORAL_TLS_CA | (the system's roots) | PEM file of the CA that signed the server's certificate |
 * | TEMPORAL_TLS_SERVER_NAME | (the address's host) | the name the server's certificate must carry |
 * | TEMPORAL_API_KEY | (none) | a Temporal Cloud API key, sent as a bearer token |
 * | PORT | 3002 | API port |
 * | HOST | 127.0.0.1 | API bind address |
 * | PUBLIC_URL | (from the request) | base URL for `url` and `next` links behind a reverse proxy |
 * | AUTH | keys | `keys`: Bearer API keys; `none`: accept every request (trusted local setups only) |
 * | ALLOW_PRIVATE_NETWORK | false | allow loopback/private targets (local use and tests) |
 * | CHROMIUM_PATH | /usr/bin/chromium | Chromium executable for the browser engine |
 * | BROWSER_PAGES_PER_WORKER | 4 | concurrent browser pages per worker |
 * | BROWSER_SESSIONS_PER_WORKER | 8 | live browser sessions (`/v2/browser`, interact) a worker holds at once, in a Chromium of their own |
 * | BROWSER_PROFILE_KEY | (none: profiles refused) | 32 bytes (64 hex digits or base64) that seal browser profiles at rest; `npm start` makes one in .cache/ |
 * | WORKER_ACTIVITY_SLOTS | 32 | concurrent activities per worker (plain-HTTP pages need no browser slot) |
 * | WORKER_HTML_THREADS | cores − 1, at least 1 | threads a worker converts HTML on; 0 converts on its main thread |
 * | MAX_REQUEST_BODY_BYTES | 10485760 | largest accepted JSON body |
 * | CRAWL_PAGES_PER_RUN | 500 | pages per workflow run before continue-as-new keeps history small |
 * | RESULT_RETENTION_HOURS | 720 | how long jobs and their documents, pages and media are kept; after it a job answers 404 JOB_EXPIRED and its rows are purged by a Temporal Schedule |
 * | MEDIA_RETENTION_HOURS | 24 | how long stored screenshots and PDFs stay downloadable; older ones answer 404 and are deleted |
 * | SCREENSHOT_DATA_URIS | false | return screenshots and PDFs inline as data: URIs instead of storing them and linking to /v2/media |
 * | PROXY_BASIC_URLS | (none: direct) | comma-separated `http(s)://[user:pass@]host:port` proxies for `proxy: basic` (and `auto`'s first try), rotated round-robin per scrape |
 * | PROXY_SERVER, PROXY_USERNAME, PROXY_PASSWORD | (none) | Firecrawl's single proxy, read as the basic pool; not together with PROXY_BASIC_URLS |
 * | PROXY_ENHANCED_URLS | (none: the basic pool) | proxies for `proxy: enhanced`/`stealth` and `auto`'s retry after 401/403/429 |
 * | PROXY_COUNTRY_<CC>_URLS, PROXY_COUNTRY_<CC>_ENHANCED_URLS | (none: the global pool of the tier) | pools for `location.country` CC, e.g. PROXY_COUNTRY_DE_URLS |
 * | ADBLOCK_LISTS_DIR | /usr/share/chromium/extensions/ublock-origin/assets | uBlock Origin's bundled filter lists (Debian's webext-ublock-origin-chromium), used by `blockAds`; `none` turns request blocking off. Missing at the default path: a warning, and cookie banners are still handled |
 * | OPENAI_API_KEY, OPENAI_BASE_URL | (none) | an OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, LM Studio, OpenRouter) for json, summary and the other model features; the base URL defaults to OpenAI's |
 * | OLLAMA_BASE_URL | (none) | an Ollama server (e.g. http://127.0.0.1:11434), used through its OpenAI-compatible API; needs MODEL_NAME |
 * | MODEL_NAME | gpt-4o-mini with OpenAI | the model every feature uses |
 * | THREAT_CLASSIFIER | builtin | threat protection's risk classifier: `builtin` (threat lists and URL heuristics, offline), `http` or `webrisk` |
 * | THREAT_CLASSIFIER_URL | (none; Google's for webrisk) | the `http` classifier's endpoint (POST {url} → {score}), or a Web Risk `uris:search` URL |
 * | WEB_RISK_API_KEY | (none) | Google Web Risk key, required with THREAT_CLASSIFIER=webrisk |
 * | THREAT_LIST_FILES | (none) | comma-separated threat list files for the builtin classifier: URLhaus CSV dumps or host lists; reloaded when they change |
 * | THREAT_CACHE_SECONDS | 3600 | how long a URL's verdict is reused |
 * | METRICS_TOKEN | (none: open) | a bearer token GET /metrics then requires |
 * | SMTP_URL | (none: email off) | e.g. smtps://user:pass@smtp.example.com:465; monitors' email notifications go through it |
 * | SMTP_FROM | Trawl <trawl@localhost> | the From of those emails |
 * | WORKER_METRICS_PORT | (none: off) | the port of a worker's own /metrics (browser pool and Temporal SDK metrics) |
 * | SEARCH_PROVIDER | index, or searxng when SEARXNG_ENDPOINT is set | where /search looks: `index` (the team's own stored pages, in Postgres) or `searxng` |
 * | SEARXNG_ENDPOINT | (none) | a SearXNG instance (e.g. http://127.0.0.1:8888) with `json` in its search.formats |
 * | DASHBOARD_PATH | /dashboard | where the API serves the dashboard; `off` serves none |
 * | DASHBOARD_ADMIN_TEAM | admin | admin-scoped keys of this team manage every team in the dashboard; other teams' admin keys see only their own |
 * | TEMPORAL_UI_URL | http://127.0.0.1:8233 | the Temporal UI the dashboard links each job's workflow to |
 * | LOG_LEVEL | info | pino log level |
 *
 * Bad values fail at start with the variable's name, never later at first use.
 */
import { z } from 'zod';
import { loadProxyConfig, type ProxyConfig } from './proxy-config.js';
import { parseSealKey, sealKeyProblem } from './sealed-box.js';
import type { TemporalSettings } from './temporal-connection.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Where Debian's webext-ublock-origin-chromium puts the lists uBlock Origin ships with. */
export const DEFAULT_ADBLOCK_LISTS_DIR = '/usr/share/chromium/extensions/ublock-origin/assets';

const envSchema = z.object({
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/trawl'),
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('trawl'),
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3002),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.url().optional(),
  AUTH: z.enum(['keys', 'none']).default('keys'),
  ALLOW_PRIVATE_NETWORK: bool.default(false),
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  BROWSER_PAGES_PER_WORKER: z.coerce.number().int().min(1).max(64).default(4),
  BROWSER_SESSIONS_PER_WORKER: z.coerce.number().int().min(1).max(256).default(8),
  BROWSER_PROFILE_KEY: z
    .string()
    .min(1)
    .optional()
    .refine((v) => v === undefined || sealKeyProblem(v) === undefined, { message: 'must be 32 bytes, as 64 hex digits or base64' }),
  WORKER_ACTIVITY_SLOTS: z.coerce.number().int().min(1).max(1000).default(32),
  WORKER_HTML_THREADS: z.coerce.number().int().min(0).max(256).optional(),
  WORKFLOW_BUNDLE: z.string().min(1).optional(),
  // At least a minute: a plan's limits are per minute, so a longer window can only make them stricter.
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(60).max(86_400).default(60),
  MAX_REQUEST_BODY_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  CRAWL_PAGES_PER_RUN: z.coerce.number().int().min(1).max(5000).default(500),
  RESULT_RETENTION_HOURS: z.coerce.number().positive().max(24 * 3650).default(720),
  MEDIA_RETENTION_HOURS: z.coerce.number().positive().max(24 * 365).default(24),
  SCREENSHOT_DATA_URIS: bool.default(false),
  ADBLOCK_LISTS_DIR: z.string().min(1).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
  OLLAMA_BASE_URL: z.url().optional(),
  MODEL_NAME: z.string().min(1).max(200).optional(),
  SEARCH_PROVIDER: z.enum(['index', 'searxng']).optional(),
  METRICS_TOKEN: z.string().min(16).optional(),
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  THREAT_CLASSIFIER: z.enum(['builtin', 'http', 'webrisk']).default('builtin'),
  THREAT_CLASSIFIER_URL: z.url().optional(),
  WEB_RISK_API_KEY: z.string().min(1).optional(),
  THREAT_LIST_FILES: z.string().optional(),
  THREAT_CACHE_SECONDS: z.coerce.number().int().min(0).max(7 * 86_400).default(3600),
  SEARXNG_ENDPOINT: z.url().optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  SMTP_FROM: z.string().min(3).max(300).default('Trawl <trawl@localhost>'),
  DASHBOARD_PATH: z
    .string()
    .regex(/^(off|(\/[A-Za-z0-9._~-]+)+)$/, 'a path like /dashboard (letters, digits, . _ ~ -), or off')
    .default('/dashboard'),
  DASHBOARD_ADMIN_TEAM: z.string().min(1).default('admin'),
  TEMPORAL_UI_URL: z.url().default('http://127.0.0.1:8233'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  databaseUrl: string;
  preparedStatements: boolean;
  temporal: TemporalSettings;
  api: { port: number; host: string; publicUrl?: string; maxRequestBodyBytes: number };
  auth: 'keys' | 'none';
  rateLimitWindowSeconds: number;
  allowPrivateNetwork: boolean;
  browser: { executablePath: string; pagesPerWorker: number; sessionsPerWorker: number; profileKey?: Buffer };
  /** htmlThreads: unset picks scraper/html/transform-pool.ts's default. */
  worker: { activitySlots: number; htmlThreads?: number; workflowBundle?: string };
  crawl: { pagesPerRun: number };
  /** How long a job's results are kept; see RESULT_RETENTION_HOURS. */
  results: { retentionHours: number };
  media: { retentionHours: number; dataUris: boolean };
  proxies: ProxyConfig;
  /** `listsDir` null: no request blocking. `required`: the directory was named explicitly, so it must exist. */
  adblock: { listsDir: string | null; required: boolean };
  /** The language model, when one is configured; null turns the model features off (400 LLM_NOT_CONFIGURED). */
  model: ModelConfig | null;
  search: SearchConfig;
  threat: ThreatConfig;
  metrics: { token?: string; workerPort?: number };
  /** Email for monitors' notifications; null: refused with a 400. */
  smtp: { url: string; from: string } | null;
  /** `path` null: no dashboard. */
  dashboard: { path: string | null; adminTeam: string; temporalUiUrl: string };
  logLevel: string;
}

export interface ThreatConfig {
  classifier: 'builtin' | 'http' | 'webrisk';
  classifierUrl?: string;
  webRiskApiKey?: string;
  listFiles: string[];
  cacheSeconds: number;
}

export interface SearchConfig {
  provider: 'index' | 'searxng';
  searxngEndpoint?: string;
}

export interface ModelConfig {
  provider: 'openai-compatible' | 'ollama';
  /** Ends in /v1: the OpenAI-compatible API root. */
  baseUrl: string;
  apiKey?: string;
  model: string;
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';
const OPENAI_DEFAULT_MODEL = 'gpt-4o-mini';

/** Firecrawl's self-host names: OPENAI_* for any OpenAI-compatible server, OLLAMA_BASE_URL for Ollama. */
function threatConfig(e: z.infer<typeof envSchema>): ThreatConfig {
  if (e.THREAT_CLASSIFIER === 'http' && !e.THREAT_CLASSIFIER_URL) {
    throw new ConfigError('Invalid configuration:\n  THREAT_CLASSIFIER_URL: required with THREAT_CLASSIFIER=http');
  }
  if (e.THREAT_CLASSIFIER === 'webrisk' && !e.WEB_RISK_API_KEY) {
    throw new ConfigError('Invalid configuration:\n  WEB_RISK_API_KEY: required with THREAT_CLASSIFIER=webrisk');
  }
  return {
    classifier: e.THREAT_CLASSIFIER,
    ...(e.THREAT_CLASSIFIER_URL && { classifierUrl: e.THREAT_CLASSIFIER_URL }),
    ...(e.WEB_RISK_API_KEY && { webRiskApiKey: e.WEB_RISK_API_KEY }),
    listFiles: (e.THREAT_LIST_FILES ?? '').split(',').map((f) => f.trim()).filter(Boolean),
    cacheSeconds: e.THREAT_CACHE_SECONDS,
  };
}

function temporalSettings(e: z.infer<typeof envSchema>): TemporalSettings {
  if (!e.TEMPORAL_TLS_CERT !== !e.TEMPORAL_TLS_KEY) {
    throw new ConfigError('Invalid configuration:\n  TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY: set both (a client certificate and its key) or neither');
  }
  return {
    address: e.TEMPORAL_ADDRESS,
    namespace: e.TEMPORAL_NAMESPACE,
    taskQueue: e.TEMPORAL_TASK_QUEUE,
    tls: { enabled: e.TEMPORAL_TLS, certPath: e.TEMPORAL_TLS_CERT, keyPath: e.TEMPORAL_TLS_KEY, caPath: e.TEMPORAL_TLS_CA, serverName: e.TEMPORAL_TLS_SERVER_NAME },
    ...(e.TEMPORAL_API_KEY && { apiKey: e.TEMPORAL_API_KEY }),
  };
}

function searchConfig(e: z.infer<typeof envSchema>): SearchConfig {
  const provider = e.SEARCH_PROVIDER ?? (e.SEARXNG_ENDPOINT ? 'searxng' : 'index');
  if (provider === 'searxng' && !e.SEARXNG_ENDPOINT) {
    throw new ConfigError('Invalid configuration:\n  SEARXNG_ENDPOINT: required with SEARCH_PROVIDER=searxng');
  }
  return { provider, ...(e.SEARXNG_ENDPOINT && { searxngEndpoint: e.SEARXNG_ENDPOINT }) };
}

function modelConfig(e: z.infer<typeof envSchema>): ModelConfig | null {
  if (e.OLLAMA_BASE_URL && (e.OPENAI_API_KEY || e.OPENAI_BASE_URL)) {
    throw new ConfigError('Invalid configuration:\n  set OLLAMA_BASE_URL or OPENAI_API_KEY/OPENAI_BASE_URL, not both');
  }
  if (e.OLLAMA_BASE_URL) {
    if (!e.MODEL_NAME) throw new ConfigError('Invalid configuration:\n  MODEL_NAME: required with OLLAMA_BASE_URL (e.g. llama3.1)');
    return { provider: 'ollama', baseUrl: `${e.OLLAMA_BASE_URL.replace(/\/+$/, '')}/v1`, model: e.MODEL_NAME };
  }
  if (e.OPENAI_API_KEY || e.OPENAI_BASE_URL) {
    return {
      provider: 'openai-compatible',
      baseUrl: (e.OPENAI_BASE_URL ?? OPENAI_BASE_URL).replace(/\/+$/, ''),
      apiKey: e.OPENAI_API_KEY,
      model: e.MODEL_NAME ?? OPENAI_DEFAULT_MODEL,
    };
  }
  return null;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  // Empty strings mean "unset": compose files and shells often export VAR= .
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  let proxies: ProxyConfig;
  try {
    proxies = loadProxyConfig(present as Record<string, string>);
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ${(err as Error).message}`);
  }
  return Object.freeze({
    databaseUrl: e.DATABASE_URL,
    preparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    temporal: temporalSettings(e),
    api: { port: e.PORT, host: e.HOST, publicUrl: e.PUBLIC_URL, maxRequestBodyBytes: e.MAX_REQUEST_BODY_BYTES },
    auth: e.AUTH,
    rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    allowPrivateNetwork: e.ALLOW_PRIVATE_NETWORK,
    browser: {
      executablePath: e.CHROMIUM_PATH,
      pagesPerWorker: e.BROWSER_PAGES_PER_WORKER,
      sessionsPerWorker: e.BROWSER_SESSIONS_PER_WORKER,
      ...(e.BROWSER_PROFILE_KEY && { profileKey: parseSealKey(e.BROWSER_PROFILE_KEY) }),
    },
    worker: { activitySlots: e.WORKER_ACTIVITY_SLOTS, htmlThreads: e.WORKER_HTML_THREADS, workflowBundle: e.WORKFLOW_BUNDLE },
    crawl: { pagesPerRun: e.CRAWL_PAGES_PER_RUN },
    results: { retentionHours: e.RESULT_RETENTION_HOURS },
    media: { retentionHours: e.MEDIA_RETENTION_HOURS, dataUris: e.SCREENSHOT_DATA_URIS },
    proxies,
    adblock: {
      listsDir: e.ADBLOCK_LISTS_DIR === 'none' ? null : (e.ADBLOCK_LISTS_DIR ?? DEFAULT_ADBLOCK_LISTS_DIR),
      required: e.ADBLOCK_LISTS_DIR !== undefined && e.ADBLOCK_LISTS_DIR !== 'none',
    },
    model: modelConfig(e),
    search: searchConfig(e),
    threat: threatConfig(e),
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    metrics: { token: e.METRICS_TOKEN, workerPort: e.WORKER_METRICS_PORT },
    dashboard: {
      path: e.DASHBOARD_PATH === 'off' ? null : e.DASHBOARD_PATH,
      adminTeam: e.DASHBOARD_ADMIN_TEAM,
      temporalUiUrl: e.TEMPORAL_UI_URL.replace(/\/+$/, ''),
    },
    logLevel: e.LOG_LEVEL,
  });
}
