/**
 * The risk classifier threat protection asks in mode `normal`, chosen by THREAT_CLASSIFIER:
 *
 * - `builtin` (the default, no network): threat list files (THREAT_LIST_FILES, reloaded when they
 *   change) give 100 on a hit; otherwise the URL heuristics of lib/threat/heuristics.ts.
 * - `http`: POST THREAT_CLASSIFIER_URL `{url}` → `{score: 0..100, categories?: string[]}`.
 * - `webrisk`: Google Web Risk `uris.search` (THREAT_CLASSIFIER_URL defaults to Google's, key in
 *   WEB_RISK_API_KEY): any threat type is 100, none is 0.
 *
 * Verdicts are cached per URL for THREAT_CACHE_SECONDS. A classifier that cannot answer throws
 * ClassifierUnavailable, and the team's failure policy decides.
 */
import { readFileSync, statSync } from 'node:fs';
import type { ThreatConfig } from '../../lib/config.js';
import { deadlineSignal } from '../../lib/deadline-signal.js';
import { scoreUrl } from '../../lib/threat/heuristics.js';
import { addListFile, emptyLists, listHit, type ThreatLists } from '../../lib/threat/lists.js';

export interface RiskAnswer {
  score: number;
  categories: string[];
}

export interface RiskClassifier {
  readonly name: string;
  classify(url: string, signal?: AbortSignal): Promise<RiskAnswer>;
}

export class ClassifierUnavailable extends Error {}

const HTTP_TIMEOUT_MS = 5_000;
const WEB_RISK_URL = 'https://webrisk.googleapis.com/v1/uris:search';

export function createRiskClassifier(config: ThreatConfig): RiskClassifier {
  const inner =
    config.classifier === 'http'
      ? httpClassifier(config.classifierUrl!)
      : config.classifier === 'webrisk'
        ? webRiskClassifier(config.classifierUrl ?? WEB_RISK_URL, config.webRiskApiKey!)
        : builtinClassifier(config.listFiles);
  return cached(inner, config.cacheSeconds * 1000);
}

function builtinClassifier(files: string[]): RiskClassifier {
  let lists: ThreatLists = emptyLists();
  let stamp = '';
  // Reloaded when a file's size or mtime changes, checked at most once a second.
  let checkedAt = 0;
  const refresh = () => {
    if (Date.now() - checkedAt < 1_000) return;
    checkedAt = Date.now();
    const stats = files.map((f) => {
      try {
        const st = statSync(f);
        return `${f}:${st.size}:${st.mtimeMs}`;
      } catch {
        return `${f}:missing`;
      }
    });
    if (stats.join('|') === stamp) return;
    const next = emptyLists();
    for (const file of files) {
      try {
        addListFile(next, readFileSync(file, 'utf8'));
      } catch {
        // A missing list is an empty one until it appears; the heuristics still answer.
      }
    }
    lists = next;
    stamp = stats.join('|');
  };
  return {
    name: 'builtin',
    async classify(url) {
      refresh();
      const hit = listHit(lists, url);
      if (hit) return { score: 100, categories: [`threat list: ${hit}`] };
      const { score, signals } = scoreUrl(url);
      return { score, categories: signals.map((s) => s.signal) };
    },
  };
}

async function postJson(url: string, body: unknown, signal?: AbortSignal, method = 'POST'): Promise<unknown> {
  let response: Response;
  const bounded = deadlineSignal(signal, HTTP_TIMEOUT_MS);
  try {
    response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
      signal: bounded.signal,
    });
  } catch (err) {
    // The caller stopped (its job was cancelled): not the classifier's failure, so no failure policy applies.
    if (signal?.aborted) throw signal.reason;
    throw new ClassifierUnavailable(`the classifier could not be reached: ${(err as Error).message}`);
  } finally {
    bounded.clear();
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ClassifierUnavailable(`the classifier answered ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new ClassifierUnavailable('the classifier answered something other than JSON');
  }
}

function httpClassifier(endpoint: string): RiskClassifier {
  return {
    name: 'http',
    async classify(url, signal) {
      const body = (await postJson(endpoint, { url }, signal)) as { score?: unknown; categories?: unknown };
      if (typeof body.score !== 'number' || body.score < 0 || body.score > 100) throw new ClassifierUnavailable('the classifier answered no score from 0 to 100');
      return { score: body.score, categories: Array.isArray(body.categories) ? body.categories.map(String) : [] };
    },
  };
}

function webRiskClassifier(endpoint: string, key: string): RiskClassifier {
  return {
    name: 'webrisk',
    async classify(url, signal) {
      const params = new URLSearchParams({ uri: url, key });
      for (const type of ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE']) params.append('threatTypes', type);
      const body = (await postJson(`${endpoint}?${params}`, undefined, signal, 'GET')) as { threat?: { threatTypes?: string[] } };
      const types = body.threat?.threatTypes ?? [];
      return { score: types.length > 0 ? 100 : 0, categories: types };
    },
  };
}

function cached(inner: RiskClassifier, ttlMs: number): RiskClassifier {
  const verdicts = new Map<string, { answer: RiskAnswer; until: number }>();
  return {
    name: inner.name,
    async classify(url, signal) {
      const hit = verdicts.get(url);
      if (hit && hit.until > Date.now()) return hit.answer;
      const answer = await inner.classify(url, signal);
      if (verdicts.size > 50_000) verdicts.clear();
      verdicts.set(url, { answer, until: Date.now() + ttlMs });
      return answer;
    },
  };
}
