import { fileURLToPath } from 'node:url';
import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';

const silent: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('lib/url and lib/crawl in the workflow sandbox', () => {
  // The Temporal bundler refuses Node builtins, so this fails if a pure module grows an import
  // of fs, net, crypto or a library that needs them.
  it('bundle as workflow code', async () => {
    const workflowsPath = fileURLToPath(new URL('../../fixtures/crawl/sandbox-workflow.ts', import.meta.url));
    const { code } = await bundleWorkflowCode({ workflowsPath, logger: silent });
    expect(code).toContain('crawlModulesWorkflow');
  });
});
