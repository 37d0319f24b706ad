import type { Db } from '../connect.js';
import type { TeamPlanRow } from '../schema.js';

/** The team's stored plan; undefined means the defaults in lib/plans.ts apply. */
export async function findTeamPlan(db: Db, teamId: string): Promise<TeamPlanRow | undefined> {
  return db.selectFrom('team_plans').selectAll().where('team_id', '=', teamId).executeTakeFirst();
}

/** Stores the whole plan, replacing the previous one. */
export async function saveTeamPlan(db: Db, plan: Omit<TeamPlanRow, 'updated_at'>): Promise<void> {
  const { team_id: _teamId, ...values } = plan;
  await db
    .insertInto('team_plans')
    .values({ ...plan, updated_at: new Date() })
    .onConflict((oc) => oc.column('team_id').doUpdateSet({ ...values, updated_at: new Date() }))
    .execute();
}
