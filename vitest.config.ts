import { defineConfig } from 'vitest/config';

/**
 * Four lanes, each named for what it needs (test/unit/architecture/test-lanes.test.ts keeps every
 * file in the right one):
 *
 *   unit         pure modules: nothing running, no child processes
 *   integration  Postgres, Chromium or a Temporal test server, started by the file itself
 *   e2e          one real stack (Temporal dev server, database, worker with Chromium, API),
 *                started in the global setup and shared by every file
 *   e2e-slow     the shared stack plus a stack of the file's own: a second API and worker pair,
 *                a private Postgres, kills and restarts
 *
 * `npm test` runs them all (scripts/test-all.ts); `npm run test:<lane>` one of them.
 */
const E2E = {
  globalSetup: ['test/e2e/global-setup.ts'],
  setupFiles: ['test/e2e/setup-env.ts'],
  testTimeout: 180_000,
  hookTimeout: 300_000,
  // The stack is shared: its files run one at a time so timing-sensitive tests stay honest.
  fileParallelism: false,
};

export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 60_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          // Each file starts its own Chromium, Temporal server or database: half the cores' worth at once.
          maxWorkers: '50%',
        },
      },
      { test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...E2E } },
      { test: { name: 'e2e-slow', include: ['test/e2e-slow/**/*.test.ts'], ...E2E } },
    ],
  },
});
