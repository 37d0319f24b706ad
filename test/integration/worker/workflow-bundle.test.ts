import { beforeAll, describe, expect, it } from 'vitest';
import { JOB_CONTEXT_HEADER } from '../../../lib/job-context.js';
import { buildWorkflowBundle } from '../../../worker/create-worker.js';

/** Packages a workflow never needs at run time, each costly to evaluate. */
const HEAVY_PACKAGES = ['zod'];

// One webpack run for both checks: it is seconds of CPU.
let code: string;
beforeAll(async () => {
  ({ code } = await buildWorkflowBundle());
}, 120_000);

describe('workflows/index.ts in the workflow sandbox', () => {
  // The Temporal bundler refuses Node builtins, so this fails if a workflow, or a pure module it
  // imports (lib/url, lib/crawl, contracts/), grows an import of fs, net, crypto or a library that needs them.
  it('bundles every workflow the worker registers', () => {
    expect(code).toContain(JOB_CONTEXT_HEADER);
    for (const name of ['scrapeWorkflow', 'crawlWorkflow', 'batchScrapeWorkflow', 'mapWorkflow', 'purgeExpiredWorkflow', 'crawlParamsPreviewWorkflow']) {
      expect(code).toContain(name);
    }
  });
});

describe('the workflow bundle', () => {
  // With reuseV8Context, every new workflow evaluates the bundle's modules afresh (the SDK keeps a
  // module cache per workflow): zod's and our schemas' set-up added about 16 ms to each scrape's
  // first workflow task. A workflow that needs a constant from a schema module imports it from a
  // schema-free one (contracts/map-timeout.ts).
  it('leaves out the schema libraries', () => {
    const modules = [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"$/gm)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(20);
    for (const pkg of HEAVY_PACKAGES) expect(modules.filter((m) => m.includes(`/node_modules/${pkg}/`))).toEqual([]);
  });
});
