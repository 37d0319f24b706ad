/**
 * Entry: `npm run -s bundle-workflows -- <file>`. Writes the workflow bundle a worker would build at
 * start, so workers started with WORKFLOW_BUNDLE=<file> skip webpack. Build it from the same
 * checkout the workers run: a bundle of other workflow code would not replay their histories.
 */
import { writeFile } from 'node:fs/promises';
import { buildWorkflowBundle } from '../worker/create-worker.js';

const [out] = process.argv.slice(2);
if (!out) {
  console.error('usage: npm run -s bundle-workflows -- <file>');
  process.exit(2);
}
await writeFile(out, (await buildWorkflowBundle()).code);
