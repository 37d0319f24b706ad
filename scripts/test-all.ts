/**
 * Entry: `npm test`, everything CI runs: lint, tsc and the four test lanes (vitest.config.ts).
 *
 * Two sequences run side by side, each line of their output prefixed with its name:
 *
 *   checks  lint, tsc, the unit lane, the integration lane, then durability.test.ts, which
 *           starts every part of its own stack (Temporal, database, workers, API)
 *   stack   the other e2e files in one vitest run, so both lanes share one stack
 *
 * An e2e file spends much of its time waiting on its stack (a crawl's pages, a worker's
 * heartbeat timeout), which the checks fill; vitest itself runs a project's single-fork files
 * only after every other file, so one vitest run could not overlap them. The stack's files still
 * run one at a time. Arguments are passed to each vitest run (`npm test -- --reporter=verbose`).
 */
import { type ChildProcess, spawn } from 'node:child_process';

const vitestArgs = process.argv.slice(2);
/** The one e2e-slow file that needs nothing of the shared stack: it balances the two sequences. */
const OWN_STACK_FILE = 'test/e2e-slow/durability.test.ts';

const SEQUENCES: Record<string, string[][]> = {
  checks: [
    ['npm', 'run', '-s', 'lint'],
    ['npm', 'run', '-s', 'typecheck'],
    ['vitest', 'run', '--project', 'unit', ...vitestArgs],
    ['vitest', 'run', '--project', 'integration', ...vitestArgs],
    ['env', 'TRAWL_E2E_SHARED_STACK=off', 'vitest', 'run', '--project', 'e2e-slow', OWN_STACK_FILE, ...vitestArgs],
  ],
  stack: [['vitest', 'run', '--project', 'e2e', '--project', 'e2e-slow', '--exclude', OWN_STACK_FILE, ...vitestArgs]],
};

const running = new Set<ChildProcess>();
// Stopping `npm test` stops what it started, stacks included (vitest tears them down on SIGTERM).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
  });
}

/** Runs `command`, prefixing its lines; resolves with its exit code. */
function run(name: string, [command, ...args]: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]] as const) {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) out.write(`[${name}] ${line}\n`);
      });
      stream.on('end', () => partial && out.write(`[${name}] ${partial}\n`));
    }
    child.on('error', (err) => {
      process.stderr.write(`[${name}] ${command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function sequence(name: string, commands: string[][]): Promise<boolean> {
  const started = Date.now();
  for (const command of commands) {
    const code = await run(name, command);
    if (code !== 0) {
      process.stderr.write(`[${name}] failed: ${command.join(' ')} exited with ${code}\n`);
      return false;
    }
  }
  process.stdout.write(`[${name}] passed in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return true;
}

const results = await Promise.all(Object.entries(SEQUENCES).map(([name, commands]) => sequence(name, commands)));
process.exit(results.every(Boolean) ? 0 : 1);
