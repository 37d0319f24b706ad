/**
 * Locates the Temporal CLI (which contains the dev server), building it from the Go module proxy
 * when a machine has Go but no binary. Nothing here downloads release archives: our machines reach
 * package registries and the Go proxy only.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { findOnPath, isExecutable } from './executables.js';
import type { LogSink } from './managed-process.js';
import { projectRoot } from './paths.js';

/** The newest CLI tag `go install pkg@version` accepts: later go.mod files carry `replace` directives. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export type TemporalCliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'GOPATH';

export interface TemporalCliLookup {
  env: NodeJS.ProcessEnv;
  /** Where a previous build was copied: `<project>/.cache/bin`. */
  cacheDir: string;
  isExecutable: (path: string) => boolean;
  /** `$(go env GOPATH)`, asked only when the cheaper places come up empty. */
  goPath: () => string | undefined;
}

/**
 * The first Temporal CLI in this order: TEMPORAL_CLI_PATH, `temporal` on PATH, the project cache,
 * `$GOPATH/bin`. A TEMPORAL_CLI_PATH that is not executable is an error, not a reason to look
 * elsewhere: the user asked for that binary.
 */
export function findTemporalCli(lookup: TemporalCliLookup): { path: string; source: TemporalCliSource } | undefined {
  const explicit = lookup.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!lookup.isExecutable(explicit)) {
      throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file.`);
    }
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = findOnPath('temporal', lookup.env, lookup.isExecutable);
  if (onPath) return { path: onPath, source: 'PATH' };
  const cached = join(lookup.cacheDir, 'temporal');
  if (lookup.isExecutable(cached)) return { path: cached, source: 'cache' };
  const goPath = lookup.goPath();
  if (goPath) {
    const built = join(goPath, 'bin', 'temporal');
    if (lookup.isExecutable(built)) return { path: built, source: 'GOPATH' };
  }
  return undefined;
}

export interface FindOrBuildTemporalCliOptions {
  log?: LogSink;
}

export async function findOrBuildTemporalCli(opts: FindOrBuildTemporalCliOptions = {}): Promise<string> {
  const log = opts.log ?? console.log;
  const cacheDir = join(projectRoot, '.cache', 'bin');
  const go = findGo(process.env);
  const lookup: TemporalCliLookup = {
    env: process.env,
    cacheDir,
    isExecutable,
    goPath: () => (go ? goEnvGoPath(go) : undefined),
  };
  const found = findTemporalCli(lookup);
  if (found) return found.path;
  if (!go) throw new Error(missingCliMessage());

  mkdirSync(cacheDir, { recursive: true });
  return withBuildLock(join(cacheDir, 'temporal.build-lock'), log, async () => {
    // Another setup may have finished the build while we waited for the lock.
    const cached = join(cacheDir, 'temporal');
    if (isExecutable(cached)) return cached;
    await buildTemporalCli(go, cached, log);
    return cached;
  });
}

function findGo(env: NodeJS.ProcessEnv): string | undefined {
  // The official tarball's location, often missing from PATH in non-login shells.
  return findOnPath('go', env) ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

function goEnvGoPath(go: string): string | undefined {
  try {
    const out = execFileSync(go, ['env', 'GOPATH'], { encoding: 'utf8', env: goBuildEnv(process.env) }).trim();
    return out.split(delimiter)[0] || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Machines sometimes set GOFLAGS (e.g. -mod=vendor) or pin GOTOOLCHAIN in ways that break a
 * module-mode `go install pkg@version`; without them Go uses its defaults and fetches a newer
 * toolchain through the proxy if the CLI needs one.
 */
export function goBuildEnv(env: NodeJS.ProcessEnv, gobin?: string): NodeJS.ProcessEnv {
  const { GOFLAGS: _flags, GOTOOLCHAIN: _toolchain, ...rest } = env;
  return { ...rest, CGO_ENABLED: '0', GOWORK: 'off', ...(gobin ? { GOBIN: gobin } : {}) };
}

async function buildTemporalCli(go: string, destination: string, log: LogSink): Promise<void> {
  const command = `CGO_ENABLED=0 go install ${TEMPORAL_CLI_MODULE}`;
  log(`[setup] temporal CLI not found; building it with \`${command}\``);
  log('[setup] the first build downloads a few hundred MB of modules and takes several minutes');
  // An empty directory, so no surrounding go.mod turns the install into a module-local build.
  const workDir = mkdtempSync(join(tmpdir(), 'trawl-temporal-build-'));
  const gobin = join(workDir, 'bin');
  const started = Date.now();
  try {
    const child = spawn(go, ['install', TEMPORAL_CLI_MODULE], {
      cwd: workDir,
      env: goBuildEnv(process.env, gobin),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        log(`[go] ${line}`);
      });
    }
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) {
      throw new Error(
        `Building the Temporal CLI failed (go exited with ${code}). Command, run in an empty directory:\n` +
          `  ${command}\nLast output:\n${tail.join('\n')}`,
      );
    }
    const partial = `${destination}.partial-${process.pid}`;
    copyFileSync(join(gobin, 'temporal'), partial);
    chmodSync(partial, 0o755);
    renameSync(partial, destination);
    log(`[setup] built the temporal CLI in ${Math.round((Date.now() - started) / 1000)} s: ${destination}`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Two setups building at once would each spend minutes of CPU on the same binary. */
async function withBuildLock<T>(lockPath: string, log: LogSink, fn: () => Promise<T>): Promise<T> {
  let announced = false;
  for (;;) {
    try {
      writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(readFileOrEmpty(lockPath));
    if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (!announced) {
      log(`[setup] another setup (pid ${holder}) is building the temporal CLI; waiting for it`);
      announced = true;
    }
    await sleep(2000);
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(lockPath);
    } catch {
      // Removed by someone who judged it stale; nothing to undo.
    }
  }
}

function readFileOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function missingCliMessage(): string {
  return [
    'The Temporal CLI (`temporal`, which runs the local Temporal server) was not found, and Go is not installed to build it.',
    'Do one of these, then run `npm run setup` again:',
    '  - install the Temporal CLI (https://docs.temporal.io/cli#install, e.g. `brew install temporal`) and put `temporal` on PATH,',
    '    or set TEMPORAL_CLI_PATH=/path/to/temporal;',
    '  - install Go 1.21 or newer (https://go.dev/dl/); setup then builds the CLI with',
    `      CGO_ENABLED=0 go install ${TEMPORAL_CLI_MODULE}`,
    'To use a Temporal server you already run instead, set TEMPORAL_ADDRESS=host:port for `npm start`.',
  ].join('\n');
}
