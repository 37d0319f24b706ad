/**
 * What production and the image run: `npm run build`, then the API and a worker from dist/ with
 * plain node (no tsx), the worker loading the workflow bundle the build wrote instead of running
 * webpack at start. On the shared Temporal server and database, with a task queue of its own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../lib/ports.js';
import { projectRoot } from '../../scripts/paths.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { e2eContext } from '../e2e/context.js';
import { E2E_ENV } from '../e2e/global-setup.js';

const { apiKey, databaseUrl, temporalAddress } = e2eContext();
let stack: Stack;
let site: PageServer;
const lines: string[] = [];

beforeAll(async () => {
  site = await startPageServer({ '/': '<h1>Compiled</h1><p>Served to the API and worker built into dist/.</p>' });
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: projectRoot, stdio: 'ignore' });
  stack = await startStack({
    databaseUrl,
    temporal: { address: temporalAddress },
    apiPort: await findFreePort(),
    compiled: true,
    // Info, to see whether the worker bundled its workflows; no WORKFLOW_BUNDLE, as in production.
    env: { ...E2E_ENV, LOG_LEVEL: 'info', TEMPORAL_TASK_QUEUE: 'trawl-compiled', WORKFLOW_BUNDLE: '' },
    log: (line) => lines.push(line),
  });
});
afterAll(async () => {
  await stack?.stop();
  await site?.close();
});

describe('the compiled build', () => {
  it('writes JavaScript and the workflow bundle to dist/', () => {
    for (const file of ['api/server.js', 'worker/main.js', 'db/migrate.js', 'scripts/admin.js', 'workflow-bundle.js', 'api/dashboard/assets/dashboard.css']) {
      expect(existsSync(join(projectRoot, 'dist', file)), file).toBe(true);
    }
  });

  it('serves a scrape from dist/, with a worker that loaded the prebuilt bundle', async () => {
    const res = await apiClient(stack.apiUrl, apiKey)('/v2/scrape', { body: { url: `${site.origin}/`, formats: ['markdown'] } });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Served to the API and worker built into dist/');
    // The SDK logs this at info level whenever a worker runs webpack over the workflows itself.
    expect(lines.some((l) => l.includes('"Worker state changed"'))).toBe(true);
    expect(lines.filter((l) => l.includes('Workflow bundle created'))).toEqual([]);
  });
});
