import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuGroupFor, cpuSeconds, type CpuGroup } from '../../../bench/process-stats.js';

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
