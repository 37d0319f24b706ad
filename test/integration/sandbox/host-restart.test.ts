/**
 * The sandbox host (sandbox/client.ts) serves many sessions' code from one process. When that
 * process dies, only its own runs end (killed, exit 137), and the next run starts a new host: a
 * crashed or killed host never leaves the worker's sessions without one.
 */
import { afterAll, expect, it } from 'vitest';
import { createSandbox, type SandboxRun } from '../../../sandbox/client.js';

const sandbox = createSandbox();

afterAll(async () => {
  await sandbox.close();
});

function run(code: string, timeoutMs = 10_000): SandboxRun {
  return { code, timeoutMs, onCall: () => Promise.resolve(undefined) };
}

it('ends the runs of a host that died, and starts another for the next run', async () => {
  expect(await sandbox.run(run('console.log("first")'))).toMatchObject({ stdout: 'first\n', exitCode: 0, killed: false });
  const firstHost = sandbox.pid();
  expect(firstHost).toBeDefined();

  const stuck = sandbox.run(run('while (true) {}', 60_000));
  // Let the run reach the host before it dies.
  await new Promise((resolve) => setTimeout(resolve, 300));
  process.kill(firstHost!, 'SIGKILL');
  expect(await stuck).toMatchObject({ exitCode: 137, killed: true, stderr: expect.stringContaining('the sandbox process ended') });

  expect(await sandbox.run(run('console.log("after")'))).toMatchObject({ stdout: 'after\n', exitCode: 0, killed: false });
  expect(sandbox.pid()).not.toBe(firstHost);
});
