/**
 * Entry: `npm run build`. Compiles the API, the worker, migrations and the admin CLI to dist/
 * (tsc -p tsconfig.build.json), copies the dashboard's static files, the sandbox host and package.json, and
 * writes the workflow bundle to dist/workflow-bundle.js, which a compiled worker loads instead of
 * running webpack over the workflows at every start. Production and the image run dist/ with
 * plain `node`; `npm start` and the tests keep running the sources through tsx.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildWorkflowBundle } from '../worker/create-worker.js';
import { projectRoot } from './paths.js';

const dist = join(projectRoot, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
  cwd: projectRoot,
  stdio: 'inherit',
});
cpSync(join(projectRoot, 'api', 'dashboard', 'assets'), join(dist, 'api', 'dashboard', 'assets'), { recursive: true });
// The sandbox host is plain JavaScript, run by a bare node under the permission model: no compile.
cpSync(join(projectRoot, 'sandbox', 'host.mjs'), join(dist, 'sandbox', 'host.mjs'));
// Modules read the package's version from package.json two folders up, which from dist/ is dist/'s own.
cpSync(join(projectRoot, 'package.json'), join(dist, 'package.json'));
writeFileSync(join(dist, 'workflow-bundle.js'), (await buildWorkflowBundle()).code);
console.log('[build] dist/ written');
