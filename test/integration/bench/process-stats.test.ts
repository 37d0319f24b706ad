import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { cpuGroupFor, cpuSeconds, pinTree, postgresCpuSeconds, type CpuGroup } from '../../../bench/process-stats.js';
import { projectRoot } from '../../../scripts/paths.js';
import { TEST_PG_SERVER } from '../../helpers/test-db.js';

/** Node code for a grandchild that uses this much CPU of its own, then leaves a file behind. */
const BURN_SECONDS = 0.3;
const grandchild = (doneFile: string) => `
const start = process.cpuUsage();
for (;;) {
  const used = process.cpuUsage(start);
  if ((used.user + used.system) / 1e6 >= ${BURN_SECONDS}) break;
}
require('node:fs').writeFileSync(${JSON.stringify(doneFile)}, '');`;

/** Waits for "go" on stdin, starts the grandchild detached and exits without waiting for it, as Chromium's zygote is left behind by its browser. */
const parent = (doneFile: string) => `
process.stdin.once('data', () => {
  require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild(doneFile))}], { detached: true, stdio: 'ignore' }).unref();
  process.exit(0);
});`;

describe('cpuGroupFor', () => {
  let group: CpuGroup | undefined;
  let dir: string | undefined;
  afterEach(() => {
    group?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('counts a process that exited orphaned, which no parent in the tree reaped', async (ctx) => {
    dir = mkdtempSync(join(tmpdir(), 'cpu-group-'));
    const doneFile = join(dir, 'done');
    const child = spawn(process.execPath, ['-e', parent(doneFile)], { stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    group = cpuGroupFor(child.pid!, 'test');
    if (!group) {
      child.kill();
      ctx.skip();
      return;
    }
    const reapedBefore = cpuSeconds(process.pid) - cpuSeconds(process.pid, true);
    child.stdin!.end('go');
    await exited;
    while (!existsSync(doneFile)) await sleep(20);
    // Its exit is counted a moment after the file appears.
    while (group.seconds() < BURN_SECONDS) await sleep(20);
    const reaped = cpuSeconds(process.pid) - cpuSeconds(process.pid, true) - reapedBefore;
    // What summing the tree sees: the parent's CPU reaped by us, not the orphan's.
    expect(reaped).toBeLessThan(BURN_SECONDS);
    expect(group.seconds()).toBeGreaterThanOrEqual(BURN_SECONDS);
  }, 30_000);
});

describe('selfCpu', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("counts the CPU of a process the caller started whose parent left it orphaned, as a retired browser's renderers are", async (ctx) => {
    dir = mkdtempSync(join(tmpdir(), 'self-cpu-'));
    const doneFile = join(dir, 'done');
    // A peer's process: counts itself, starts a "browser" that leaves a burning orphan, reports.
    const peer = `
      import { spawn } from 'node:child_process';
      import { existsSync } from 'node:fs';
      import { setTimeout as sleep } from 'node:timers/promises';
      import { cpuSeconds, selfCpu } from ${JSON.stringify(join(projectRoot, 'bench/process-stats.ts'))};
      const cpu = selfCpu('test');
      // What the peer itself uses (reading /proc for a tree sum is not free) is not the orphan's.
      const others = () => cpu.seconds() - cpuSeconds(process.pid, true);
      const before = others();
      const browser = spawn(process.execPath, ['-e', ${JSON.stringify(parent(doneFile))}], { stdio: ['pipe', 'ignore', 'ignore'] });
      const exited = new Promise((resolve) => browser.once('exit', resolve));
      browser.stdin.end('go');
      await exited;
      while (!existsSync(${JSON.stringify(doneFile)})) await sleep(20);
      // Its exit is counted a moment after the file appears.
      for (let i = 0; i < 100 && others() - before < ${BURN_SECONDS}; i++) await sleep(20);
      console.log(JSON.stringify({ countedBy: cpu.countedBy, used: others() - before }));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', peer], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    const { countedBy, used } = JSON.parse(output) as { countedBy: string; used: number };
    if (countedBy === 'tree') ctx.skip();
    expect(used).toBeGreaterThanOrEqual(BURN_SECONDS);
  }, 30_000);
});

describe('postgresCpuSeconds', () => {
  it('counts the work of a backend that has since exited', async (ctx) => {
    const before = postgresCpuSeconds();
    // The tests' Postgres runs on this machine; where DATABASE_URL points elsewhere there is nothing to count.
    if (before === 0) ctx.skip();
    // A connection of its own, closed before the count: its backend's CPU reaches the postmaster's totals only once reaped.
    const client = new pg.Client(`${TEST_PG_SERVER}/postgres`);
    await client.connect();
    await client.query('select count(*) from generate_series(1, 3000000)');
    await client.end();
    await vi.waitFor(() => expect(postgresCpuSeconds() - before).toBeGreaterThan(0.05));
  });
});

describe('pinTree', () => {
  /** The CPUs a process may run on, as /proc lists them ("0", "0-1"). */
  const allowed = (pid: number) => /^Cpus_allowed_list:\s+(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];

  it('pins a process, the process it started, and what that one starts afterwards', async (ctx) => {
    if (availableParallelism() < 2) ctx.skip();
    // A child that starts a grandchild at once, and another one when told to.
    const script = `const { spawn } = require('node:child_process');
      const sleeper = () => spawn('sleep', ['30'], { stdio: 'ignore' }).pid;
      console.log(sleeper());
      process.stdin.once('data', () => console.log(sleeper()));
      setTimeout(() => {}, 30000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
    const pids: number[] = [];
    child.stdout!.on('data', (chunk: Buffer) => pids.push(...chunk.toString().split('\n').filter(Boolean).map(Number)));
    try {
      await vi.waitFor(() => expect(pids).toHaveLength(1));
      expect(allowed(child.pid!)).not.toBe('1');
      expect(pinTree(child.pid!, 1)).toBe(true);
      child.stdin!.write('go');
      await vi.waitFor(() => expect(pids).toHaveLength(2));
      expect([child.pid!, ...pids].map(allowed)).toEqual(['1', '1', '1']);
    } finally {
      for (const pid of pids) process.kill(pid);
      child.kill();
    }
  });

  it('says so when the process cannot be pinned', () => {
    expect(pinTree(2 ** 22 + 1, 0)).toBe(false);
  });
});
