/**
 * Browser profiles at rest: a context's cookies and localStorage (Playwright's storage state),
 * sealed with BROWSER_PROFILE_KEY and bound to the team and name. A profile larger than
 * MAX_PROFILE_BYTES is not saved: one team's profiles must not fill the shared database.
 */
import { readSealedProfile, updateSealedProfile } from '../../db/repositories/browser-profiles.js';
import type { Db } from '../../db/connect.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { open, seal } from '../../lib/sealed-box.js';
import type { StorageState } from './live-sessions.js';
import { mergeProfile } from './profile-merge.js';

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
  return sealed && openProfile(requireKey(key), teamId, name, sealed);
}

function openProfile(key: Buffer, teamId: string, name: string, sealed: Buffer): StorageState {
  return JSON.parse(open(key, boxContext(teamId, name), sealed).toString('utf8')) as StorageState;
}

/**
 * Saves what changed from `base`, the state the page or session started from, into the stored
 * profile (profile-merge.ts). False when the result was too large to keep (the stored one stays).
 */
export async function saveProfile(
  db: Db,
  key: Buffer | undefined,
  teamId: string,
  name: string,
  state: StorageState,
  base: StorageState | undefined,
): Promise<boolean> {
  const sealKey = requireKey(key);
  return updateSealedProfile(db, teamId, name, (stored) => {
    const merged = mergeProfile(base, state, stored && openProfile(sealKey, teamId, name, stored));
    const plain = Buffer.from(JSON.stringify(merged));
    return plain.length > MAX_PROFILE_BYTES ? undefined : seal(sealKey, boxContext(teamId, name), plain);
  });
}
