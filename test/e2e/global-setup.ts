/**
 * One real stack for every e2e file: a Temporal dev server (SQLite in a temp dir), a fresh
 * Postgres database with the real migrations, a worker with Chromium, and the API — the same
 * code `npm start` runs. Tests get its address and an API key through `inject()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { generateApiKey, hashApiKey, keyPrefix } from '../../api/auth/api-keys.js';
import { createDb } from '../../db/connect.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack } from '../../scripts/stack.js';
import { dropDatabase, testDatabaseUrl } from '../helpers/test-db.js';

/** Environment every API and worker process of the e2e stacks gets. */
export const E2E_ENV = {
  ALLOW_PRIVATE_NETWORK: 'true',
  LOG_LEVEL: 'warn',
  // Small runs, so continue-as-new happens inside ordinary crawl tests.
  CRAWL_PAGES_PER_RUN: '25',
};

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-e2e-'));
  const databaseUrl = testDatabaseUrl('trawl_e2e');
  const lines: string[] = [];
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

  const db = createDb(databaseUrl, { maxConnections: 1 });
  const team = await findOrCreateTeam(db, 'e2e');
  const apiKey = generateApiKey();
  await insertApiKey(db, { teamId: team.id, keyHash: hashApiKey(apiKey), keyPrefix: keyPrefix(apiKey), scopes: null });
  await db.destroy();

  project.provide('apiUrl', stack.apiUrl);
  project.provide('apiKey', apiKey);
  project.provide('databaseUrl', databaseUrl);
  project.provide('temporalAddress', stack.temporalAddress);
  project.provide('taskQueue', 'trawl');

  return async () => {
    await stack.stop();
    await dropDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
    const errors = lines.filter((l) => /"level":(50|60)|Error:/.test(l));
    if (errors.length) console.log(`stack logged ${errors.length} error lines; last:\n${errors.slice(-10).join('\n')}`);
  };
}
