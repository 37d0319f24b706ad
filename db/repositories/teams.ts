import type { Db } from '../connect.js';
import type { Team } from '../schema.js';

export async function findOrCreateTeam(db: Db, name: string): Promise<Team> {
  await db.insertInto('teams').values({ name }).onConflict((oc) => oc.column('name').doNothing()).execute();
  return db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
}

export async function findTeamByName(db: Db, name: string): Promise<Team | undefined> {
  return db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirst();
}
