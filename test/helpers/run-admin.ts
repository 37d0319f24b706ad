/** Runs the admin CLI exactly as a user would (`npm run admin -- …`), minus npm's own overhead. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../scripts/paths.js';

const run = promisify(execFile);

export async function runAdmin(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
  });
}

/** `keys create` prints the key alone on the last line of stdout. */
export async function createKeyWithCli(databaseUrl: string, team: string, extra: string[] = []): Promise<string> {
  const { stdout } = await runAdmin(databaseUrl, ['keys', 'create', '--team', team, ...extra]);
  return stdout.trim().split('\n').at(-1)!;
}
