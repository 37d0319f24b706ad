/**
 * Browser profiles: a team's named cookies and localStorage, stored sealed (lib/sealed-box.ts)
 * with the team and name bound in, so a row never opens for another team or under another name.
 */
import type { Db } from '../connect.js';

export async function readSealedProfile(db: Db, teamId: string, name: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('browser_profiles').select('sealed').where('team_id', '=', teamId).where('name', '=', name).executeTakeFirst();
  return row?.sealed;
}

export async function saveSealedProfile(db: Db, teamId: string, name: string, sealed: Buffer): Promise<void> {
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
