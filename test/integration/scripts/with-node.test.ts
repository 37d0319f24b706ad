/**
 * scripts/with-node.mjs, which every npm script starts with: on Node ≥ 22 it runs the command as
 * it is; on an older Node it installs Node 24 from the npm registry into `.cache/node/` once and
 * runs the command, and everything the command starts, on that.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../scripts/paths.js';

const run = promisify(execFile);
const LAUNCHER = join(projectRoot, 'scripts', 'with-node.mjs');
/** A grandchild reports which `node` PATH gives it, as npm, tsx and vitest find theirs. */
const REPORT = ['sh', '-c', 'node -p process.version'];

/** A Node older than 22 on this machine's PATH (Debian's, on our CI machines), if any. */
async function oldSystemNode(): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    if (!dir || !existsSync(candidate)) continue;
    const { stdout } = await run(candidate, ['-p', 'process.versions.node']);
    if (Number(stdout.split('.')[0]) < 22) return candidate;
  }
  return undefined;
}

describe('with-node.mjs', () => {
  it('on Node 22+ runs the command with PATH untouched and says nothing', async () => {
    const { stdout, stderr } = await run(process.execPath, [LAUNCHER, 'sh', '-c', 'printf %s "$PATH"']);
    expect(stdout).toBe(process.env.PATH);
    expect(stderr).toBe('');
  });

  it('passes the exit code through', async () => {
    await expect(run(process.execPath, [LAUNCHER, 'sh', '-c', 'exit 7'])).rejects.toMatchObject({ code: 7 });
  });

  describe('on an older Node', async () => {
    const oldNode = await oldSystemNode();
    // A copy of the launcher in an empty project, so its `.cache/` starts empty as in a fresh clone.
    const root = mkdtempSync(join(tmpdir(), 'trawl-with-node-'));
    mkdirSync(join(root, 'scripts'));
    copyFileSync(LAUNCHER, join(root, 'scripts', 'with-node.mjs'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it.skipIf(!oldNode)('installs Node 24 from the npm package once and runs the command and its children on it', async () => {
      const first = await run(oldNode!, [join(root, 'scripts', 'with-node.mjs'), ...REPORT], { cwd: root });
      expect(first.stdout.trim()).toMatch(/^v24\./);
      expect(first.stderr).toMatch(/^\[node\] Node [\d.]+ is too old \(Trawl needs 22\+\): installed Node 24\.[\d.]+ in \.cache\/node\/24\.[\d.]+\n$/);

      const second = await run(oldNode!, [join(root, 'scripts', 'with-node.mjs'), ...REPORT], { cwd: root });
      expect(second.stdout).toBe(first.stdout);
      expect(second.stderr).toMatch(/: using Node 24\./);
    });
  });
});
