import type { Db } from '../connect.js';
import type { Team } from '../schema.js';

export async function findOrCreateTeam(db: Db, name: string): Promise<Team> {
  await db.insertInto('teams').values({ name }).onConflict((oc) => oc.column('name').doNothing()).execute();
  return db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
}

export async function findTeamByName(db: Db, name: string): Promise<Team | undefined> {
  return db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function findTeamById(db: Db, id: string): Promise<Team | undefined> {
  return db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every team, or only `ids`, by name. */
export async function listTeams(db: Db, ids?: readonly string[]): Promise<Team[]> {
  if (ids && ids.length === 0) return [];
  let q = db.selectFrom('teams').selectAll().orderBy('name');
  if (ids) q = q.where('id', 'in', ids);
  return q.execute();
}
