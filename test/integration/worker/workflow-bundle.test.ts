import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../../worker/create-worker.js';

const silent: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Packages a workflow never needs at run time, each costly to evaluate. */
const HEAVY_PACKAGES = ['zod'];

describe('the workflow bundle', () => {
  // With reuseV8Context, every new workflow evaluates the bundle's modules afresh (the SDK keeps a
  // module cache per workflow): zod's and our schemas' set-up added about 16 ms to each scrape's
  // first workflow task. A workflow that needs a constant from a schema module imports it from a
  // schema-free one (contracts/map-timeout.ts).
  it('leaves out the schema libraries', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: silent });
    const modules = [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"$/gm)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(20);
    for (const pkg of HEAVY_PACKAGES) expect(modules.filter((m) => m.includes(`/node_modules/${pkg}/`))).toEqual([]);
  }, 120_000);
});
