/**
 * One real stack for every e2e file: a Temporal dev server (SQLite in a temp dir), a fresh
 * Postgres database with the real migrations, a worker with Chromium, and the API — the same
 * code `npm start` runs. Tests get its address and an API key through `inject()`.
 *
 * The workflows are bundled here once, for this stack's worker and every stack a test file
 * starts (they inherit WORKFLOW_BUNDLE through setup-env.ts), instead of by webpack in each of
 * about 18 worker processes. It carries short-heartbeats.ts, so a killed worker's pages are
 * retried sooner.
 *
 * Both e2e projects name this file; the first to start builds the stack and the last to finish
 * stops it, so a run of both shares one. With TRAWL_E2E_SHARED_STACK=off it only builds the
 * bundle, for a run of files that start every part of their stack themselves (scripts/test-all.ts
 * runs durability.test.ts so, beside the shared stack's files).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { generateApiKey, hashApiKey, keyPrefix } from '../../api/auth/api-keys.js';
import { createDb } from '../../db/connect.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack } from '../../scripts/stack.js';
import { buildWorkflowBundle } from '../../worker/create-worker.js';
import { E2E_RATE_LIMIT_WINDOW_SECONDS } from '../helpers/rate-limit-window.js';
import { dropDatabase, testDatabaseUrl } from '../helpers/test-db.js';
import type { E2eContext } from './context.js';

/** Environment every API and worker process of the e2e stacks gets. */
export const E2E_ENV = {
  ALLOW_PRIVATE_NETWORK: 'true',
  LOG_LEVEL: 'warn',
  // Small runs, so continue-as-new happens inside ordinary crawl tests.
  CRAWL_PAGES_PER_RUN: '25',
  RATE_LIMIT_WINDOW_SECONDS: String(E2E_RATE_LIMIT_WINDOW_SECONDS),
  // Browser profiles are sealed with it; a fixed test key, never a real one.
  BROWSER_PROFILE_KEY: '0'.repeat(64),
};

interface SharedStack {
  context: Promise<Partial<E2eContext>>;
  users: number;
  stop(): Promise<void>;
}

/** Held on globalThis: vitest loads this module once per project, in the same process. */
const shared = globalThis as { trawlE2eStack?: SharedStack };

export default async function setup(project: TestProject) {
  shared.trawlE2eStack ??= startSharedStack();
  const current = shared.trawlE2eStack;
  current.users++;
  for (const [key, value] of Object.entries(await current.context)) project.provide(key as keyof E2eContext, value);
  return async () => {
    if (--current.users > 0) return;
    shared.trawlE2eStack = undefined;
    await current.stop();
  };
}

/** Shorter heartbeat timeouts, so tests that kill workers wait less (short-heartbeats.ts). */
const SHORT_HEARTBEATS = fileURLToPath(new URL('./short-heartbeats.ts', import.meta.url));

function startSharedStack(): SharedStack {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-e2e-'));
  const databaseUrl = testDatabaseUrl('trawl_e2e');
  const lines: string[] = [];
  const bundlePath = join(dataDir, 'workflow-bundle.js');
  let stop = async () => {};

  const start = async (): Promise<Partial<E2eContext>> => {
    writeFileSync(bundlePath, (await buildWorkflowBundle([SHORT_HEARTBEATS])).code);
    // Stacks that test files start inherit it from their process (setup-env.ts sets it there).
    process.env.WORKFLOW_BUNDLE = bundlePath;
    if (process.env.TRAWL_E2E_SHARED_STACK === 'off') {
      stop = async () => rmSync(dataDir, { recursive: true, force: true });
      return { workflowBundle: bundlePath };
    }
    const stack = await startStack({
      databaseUrl,
      temporal: { port: await findFreePort(), dataDir },
      apiPort: await findFreePort(),
      env: E2E_ENV,
      log: (line) => {
        lines.push(line);
        if (process.env.TRAWL_E2E_VERBOSE) console.log(line);
      },
    }).catch((err) => {
      console.error(lines.slice(-80).join('\n'));
      throw err;
    });
    stop = async () => {
      await stack.stop();
      await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
      const errors = lines.filter((l) => /"level":(50|60)|Error:/.test(l));
      if (errors.length) console.log(`stack logged ${errors.length} error lines; last:\n${errors.slice(-10).join('\n')}`);
    };

    const db = createDb(databaseUrl, { maxConnections: 1 });
    const team = await findOrCreateTeam(db, 'e2e');
    const apiKey = generateApiKey();
    await insertApiKey(db, { teamId: team.id, keyHash: hashApiKey(apiKey), keyPrefix: keyPrefix(apiKey), scopes: null });
    await db.destroy();
    return { apiUrl: stack.apiUrl, apiKey, databaseUrl, temporalAddress: stack.temporalAddress, taskQueue: 'trawl', workflowBundle: bundlePath };
  };
  return { context: start(), users: 0, stop: () => stop() };
}
