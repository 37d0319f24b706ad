/**
 * Options Trawl accepts in the schema but cannot honour in this deployment fail here, before a
 * workflow starts, with a 4xx that names the option. Never a silent partial result.
 */
import { resolveOutputs } from '../contracts/page-outputs.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { pageCachePolicy } from '../lib/page-cache-policy.js';
import { schemaProblem } from '../llm/json-schema.js';
import { httpError } from './errors.js';

export interface DeploymentFeatures {
  llmConfigured: boolean;
  /** SMTP_URL is set: monitors may send email. */
  emailConfigured?: boolean;
  /** BROWSER_PROFILE_KEY is set: browser profiles can be sealed at rest. */
  profilesConfigured?: boolean;
}

/**
 * `cacheOnly`: the pages may answer from the cache alone (lockdown, minAge), which /v2/scrape and
 * batch scrape pages do. Firecrawl offers lockdown on neither crawl, map, extract nor search: a
 * crawl finds its pages by fetching them, and the others fetch what they found.
 */
export function assertScrapeOptionsSupported(options: ScrapeOptions, features: DeploymentFeatures, use: { cacheOnly?: boolean } = {}): void {
  assertCacheOnly(options, use.cacheOnly === true);
  assertProfilesConfigured(features, options.profile);
  if (options.onlyCleanContent) assertModelConfigured(features, 'onlyCleanContent', 'onlyCleanContent');
  if (options.redactPII && options.formats.some((f) => f.type === 'rawBase64')) {
    throw httpError('BAD_REQUEST', 'Bad Request: redactPII cannot redact rawBase64, the response as bytes', { option: 'redactPII' });
  }
  for (const format of options.formats) {
    if (MODEL_FORMATS.has(format.type)) {
      assertModelConfigured(features, `The ${format.type} format`, `formats.${format.type}`);
    }
    if (format.type === 'json') assertJsonSchema(format.schema, 'formats.json.schema');
    if (format.type === 'changeTracking' && format.modes.includes('json')) {
      assertModelConfigured(features, 'changeTracking.modes.json', 'formats.changeTracking.modes.json');
      assertJsonSchema(format.schema, 'formats.changeTracking.schema');
    }
  }
}

/** Formats a model produces; `changeTracking` needs one in its json mode only (below). */
const MODEL_FORMATS: ReadonlySet<string> = new Set(['json', 'summary', 'question', 'query', 'highlights']);

function assertCacheOnly(options: ScrapeOptions, allowed: boolean): void {
  const option = options.lockdown ? 'lockdown' : options.minAge !== undefined ? 'minAge' : undefined;
  if (!option) return;
  if (!allowed) {
    throw httpError('BAD_REQUEST', `Bad Request: ${option} answers only from the page cache, which only /v2/scrape and batch scrape read`, { option });
  }
  if (pageCachePolicy(options, resolveOutputs(options.formats)).mode === 'bypass') {
    throw httpError(
      'BAD_REQUEST',
      `Bad Request: ${option} answers only from the page cache, which waitFor, actions, headers, the stealth proxy and changeTracking bypass`,
      { option },
    );
  }
}

/**
 * A profile is refused at submission without the key that seals it, not after its page was
 * fetched and charged, when saving it back would fail.
 */
export function assertProfilesConfigured(features: DeploymentFeatures, profile: unknown): void {
  if (profile === undefined || features.profilesConfigured) return;
  throw httpError('UNSUPPORTED_OPTION', 'Browser profiles are not available: the server has no BROWSER_PROFILE_KEY', { option: 'profile' });
}

/** 400 LLM_NOT_CONFIGURED at once, naming what needed the model and the variables to set. */
export function assertModelConfigured(features: DeploymentFeatures, what: string, option: string): void {
  if (features.llmConfigured) return;
  throw httpError('LLM_NOT_CONFIGURED', `${what} needs a language model; set OPENAI_API_KEY (and OPENAI_BASE_URL) or OLLAMA_BASE_URL`, { option });
}

/** 422 INVALID_JSON_SCHEMA before anything is fetched or charged, for a schema that is not JSON Schema. */
export function assertJsonSchema(schema: Record<string, unknown> | undefined, option: string): void {
  const problem = schema && schemaProblem(schema);
  if (problem) throw httpError('INVALID_JSON_SCHEMA', problem, { option });
}
