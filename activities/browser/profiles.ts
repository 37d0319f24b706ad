/**
 * Browser profiles at rest: a context's cookies and localStorage (Playwright's storage state),
 * sealed with BROWSER_PROFILE_KEY and bound to the team and name. A profile larger than
 * MAX_PROFILE_BYTES is not saved: one team's profiles must not fill the shared database.
 */
import { readSealedProfile, saveSealedProfile } from '../../db/repositories/browser-profiles.js';
import type { Db } from '../../db/connect.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { open, seal } from '../../lib/sealed-box.js';
import type { StorageState } from './live-sessions.js';

export const MAX_PROFILE_BYTES = 1024 * 1024;

function boxContext(teamId: string, name: string): string {
  return `browser-profile\0${teamId}\0${name}`;
}

function requireKey(key: Buffer | undefined): Buffer {
  if (!key) throw new NonRetryablePageError('UNSUPPORTED_OPTION', 'Browser profiles need BROWSER_PROFILE_KEY set on the server');
  return key;
}

export async function loadProfile(db: Db, key: Buffer | undefined, teamId: string, name: string): Promise<StorageState | undefined> {
  const sealed = await readSealedProfile(db, teamId, name);
  if (!sealed) return undefined;
  return JSON.parse(open(requireKey(key), boxContext(teamId, name), sealed).toString('utf8')) as StorageState;
}

/** False when the state was too large to keep (the previous save stays). */
export async function saveProfile(db: Db, key: Buffer | undefined, teamId: string, name: string, state: StorageState): Promise<boolean> {
  const plain = Buffer.from(JSON.stringify(state));
  if (plain.length > MAX_PROFILE_BYTES) return false;
  await saveSealedProfile(db, teamId, name, seal(requireKey(key), boxContext(teamId, name), plain));
  return true;
}
