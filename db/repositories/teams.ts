import { sql } from 'kysely';
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
  let q = db.selectFrom('teams').selectAll().where('deleted_at', 'is', null).orderBy('name');
  if (ids) q = q.where('id', 'in', ids);
  return q.execute();
}

/**
 * Retires a team: its active keys are revoked and it is renamed, so the name is free and every
 * lookup by name misses it. Its jobs and credit ledger stay, for the books. Idempotent.
 */
export async function retireTeam(db: Db, teamId: string): Promise<{ keysRevoked: number }> {
  return db.transaction().execute(async (trx) => {
    const revoked = await trx.updateTable('api_keys').set({ revoked_at: new Date() }).where('team_id', '=', teamId).where('revoked_at', 'is', null).executeTakeFirst();
    await trx
      .updateTable('teams')
      .set({ deleted_at: new Date(), name: sql<string>`name || ' (deleted ' || id::text || ')'` })
      .where('id', '=', teamId)
      .where('deleted_at', 'is', null)
      .execute();
    return { keysRevoked: Number(revoked.numUpdatedRows) };
  });
}
