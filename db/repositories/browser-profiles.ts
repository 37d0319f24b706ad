/**
 * Browser profiles: a team's named cookies and localStorage, stored sealed (lib/sealed-box.ts)
 * with the team and name bound in, so a row never opens for another team or under another name.
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

/** The advisory lock class of a profile's read-modify-write (crawl-pages.ts holds another). */
const PROFILE_LOCK = 0x70726f66;

export async function readSealedProfile(db: Db, teamId: string, name: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('browser_profiles').select('sealed').where('team_id', '=', teamId).where('name', '=', name).executeTakeFirst();
  return row?.sealed;
}

/**
 * Replaces the profile with what `update` makes of the stored one, one writer at a time per
 * profile, so two saves that land together merge rather than the second overwriting the first.
 * `update` answering undefined leaves the row as it was.
 */
export async function updateSealedProfile(
  db: Db,
  teamId: string,
  name: string,
  update: (stored: Buffer | undefined) => Buffer | undefined,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${PROFILE_LOCK}::integer, hashtext(${`${teamId}/${name}`}))`.execute(trx);
    const sealed = update(await readSealedProfile(trx, teamId, name));
    if (!sealed) return false;
    await saveSealedProfile(trx, teamId, name, sealed);
    return true;
  });
}

async function saveSealedProfile(db: Db, teamId: string, name: string, sealed: Buffer): Promise<void> {
  await db
    .insertInto('browser_profiles')
    .values({ team_id: teamId, name, sealed })
    .onConflict((oc) => oc.columns(['team_id', 'name']).doUpdateSet({ sealed, updated_at: new Date() }))
    .execute();
}

export async function listProfiles(db: Db, teamId: string): Promise<{ name: string; updated_at: Date }[]> {
  return db.selectFrom('browser_profiles').select(['name', 'updated_at']).where('team_id', '=', teamId).orderBy('name').execute();
}

export async function deleteProfile(db: Db, teamId: string, name: string): Promise<boolean> {
  const result = await db.deleteFrom('browser_profiles').where('team_id', '=', teamId).where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
