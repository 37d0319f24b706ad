import { defineConfig } from 'vitest/config';

// Two projects: unit tests need nothing running; e2e tests share one real stack
// (Temporal dev server, Postgres database, worker with Chromium, API) started in globalSetup.
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          // The stack is shared: files run one at a time so timing-sensitive tests stay honest.
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
