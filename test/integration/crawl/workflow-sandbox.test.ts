import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { JOB_CONTEXT_HEADER } from '../../../lib/job-context.js';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../../worker/create-worker.js';

const silent: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('workflows/index.ts in the workflow sandbox', () => {
  // The Temporal bundler refuses Node builtins, so this fails if a workflow, or a pure module it
  // imports (lib/url, lib/crawl, contracts/), grows an import of fs, net, crypto or a library that needs them.
  it('bundles every workflow the worker registers', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: silent });
    expect(code).toContain(JOB_CONTEXT_HEADER);
    for (const name of ['scrapeWorkflow', 'crawlWorkflow', 'batchScrapeWorkflow', 'mapWorkflow', 'purgeExpiredWorkflow', 'crawlParamsPreviewWorkflow']) {
      expect(code).toContain(name);
    }
  }, 120_000);
});
