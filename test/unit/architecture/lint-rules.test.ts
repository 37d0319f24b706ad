/**
 * The lint rules in eslint.config.js fire on what they exist to stop. `npm test` runs ESLint over
 * the whole tree first; this proves that a clean run means something.
 */
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: process.cwd() });
});

/** Lints `code` as if it were the file at `filePath`, and returns the rules it broke. */
async function brokenRules(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint rules', () => {
  it('keep workflow code deterministic: no Node built-ins, no I/O packages, no timers', async () => {
    expect(await brokenRules('workflows/crawl.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await brokenRules('workflows/crawl.ts', "import { sql } from 'kysely';\nexport const x = sql;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await brokenRules('workflows/crawl.ts', 'export const t = setTimeout;\n')).toContain('no-restricted-globals');
  }, 120_000);

  it('let workflows import activity types but not activity code', async () => {
    const typeOnly = "import type { ScrapePageInput } from '../activities/scrape-page.js';\nexport type X = ScrapePageInput;\n";
    expect(await brokenRules('workflows/crawl.ts', typeOnly)).toEqual([]);
    const value = "import { createScrapePageActivity } from '../activities/scrape-page.js';\nexport const f = createScrapePageActivity;\n";
    expect(await brokenRules('workflows/crawl.ts', value)).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('enforce the layers: lib/ never imports the API, activities never import workflows', async () => {
    expect(await brokenRules('lib/credits.ts', "import { createApp } from '../api/app.js';\nexport const a = createApp;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(
      await brokenRules('activities/map.ts', "import { mapWorkflow } from '../workflows/map.js';\nexport const m = mapWorkflow;\n"),
    ).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('keep worker/ a leaf and Playwright inside browser/', async () => {
    expect(await brokenRules('api/app.ts', "import { main } from '../worker/main.js';\nexport const y = main;\n")).toContain(
      'no-restricted-syntax',
    );
    expect(await brokenRules('scraper/scrape.ts', "import { chromium } from 'playwright-core';\nexport const c = chromium;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await brokenRules('browser/browser-pool.ts', "import { chromium } from 'playwright-core';\nexport const c = chromium;\n")).toEqual([]);
  });

  it('keep patterns built from input inside lib/patterns/, where they match in linear time', async () => {
    const fromInput = 'export function f(glob: string) { return new RegExp(glob); }\n';
    expect(await brokenRules('lib/threat/policy.ts', fromInput)).toContain('no-restricted-syntax');
    expect(await brokenRules('activities/extract.ts', 'export const g = (s: string) => RegExp(s);\n')).toContain('no-restricted-syntax');
    expect(await brokenRules('scraper/html/main-content.ts', "import { parse } from 'css-what';\nexport const p = parse;\n")).toContain(
      'no-restricted-syntax',
    );
    expect(await brokenRules('lib/threat/policy.ts', "const WORDS = ['a', 'b'];\nexport const W = new RegExp(`(${WORDS.join('|')})`);\n")).toEqual([]);
    expect(await brokenRules('lib/patterns/regex.ts', "import { RE2JS } from 're2js';\nexport const r = RE2JS;\n")).toEqual([]);
  });

  it('keep SQL in db/repositories/, migrations free of the app, and worker/ free of scripts/', async () => {
    const query = "import type { Db } from '../db/connect.js';\nexport const f = (db: Db) => db.selectFrom('jobs').selectAll().execute();\n";
    expect(await brokenRules('api/metrics.ts', query)).toContain('no-restricted-syntax');
    expect(await brokenRules('activities/monitor/check.ts', "import { sql } from 'kysely';\nexport const q = sql`select 1`;\n")).toContain('no-restricted-syntax');
    expect(await brokenRules('db/repositories/jobs.ts', query.replace('../db/connect.js', '../connect.js'))).toEqual([]);
    const migration = 'db/migrations/2026_11_29_000100_search_words_from_writers.ts';
    expect(await brokenRules(migration, "import { words } from '../../lib/search/lexemes.js';\nexport const w = words;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await brokenRules(migration, "import { up } from './2026_11_28_000300_search_tsv_once.js';\nexport const u = up;\n")).toEqual([]);
    expect(await brokenRules('worker/main.ts', "import { startStack } from '../scripts/stack.js';\nexport const s = startStack;\n")).toContain('no-restricted-syntax');
  });

  it('keep workflow and Schedule ids to the one convention of lib/workflow-ids.ts', async () => {
    const child = "export const o = (id: string, step: number) => ({ workflowId: `${id}-child-${step}` });\n";
    expect(await brokenRules('workflows/agent-loop.ts', child)).toContain('no-restricted-syntax');
    expect(await brokenRules('activities/monitor/check.ts', 'export function f(id: string) {\n  const workflowId = `crawl-${id}`;\n  return workflowId;\n}\n')).toContain(
      'no-restricted-syntax',
    );
    expect(await brokenRules('worker/schedules.ts', "export const o = (q: string) => ({ scheduleId: `${q}-purge` });\n")).toContain('no-restricted-syntax');
    expect(await brokenRules('lib/workflow-ids.ts', child)).toEqual([]);
    expect(await brokenRules('workflows/agent-loop.ts', "export const o = (id: string) => ({ workflowId: id });\n")).toEqual([]);
  });

  it('catch a promise nobody awaits', async () => {
    expect(await brokenRules('activities/map.ts', 'async function f() {}\nexport function g() { f(); }\n')).toContain(
      '@typescript-eslint/no-floating-promises',
    );
  });
});
