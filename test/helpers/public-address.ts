/**
 * A global unicast address on this machine, for SSRF tests that need a site the policy treats as
 * public beside one it does not (127.0.0.1). The address is added to the loopback interface,
 * which needs root (CAP_NET_ADMIN); nothing leaves the machine. An address someone else already
 * added is used and left in place.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Globally routed (so "public" to the policy), and never contacted: it only lives on lo here. */
export const PUBLIC_TEST_ADDRESS = '93.184.215.14';

export const canAddPublicAddress = process.platform === 'linux' && process.getuid?.() === 0;

export async function addPublicAddress(): Promise<{ ip: string; release(): Promise<void> }> {
  let added = true;
  await run('ip', ['addr', 'add', `${PUBLIC_TEST_ADDRESS}/32`, 'dev', 'lo']).catch((err: { stderr?: string }) => {
    if (!String(err.stderr).includes('File exists')) throw err;
    added = false;
  });
  return {
    ip: PUBLIC_TEST_ADDRESS,
    release: async () => {
      if (added) await run('ip', ['addr', 'del', `${PUBLIC_TEST_ADDRESS}/32`, 'dev', 'lo']).catch(() => undefined);
    },
  };
}
