/**
 * Teams' threat-protection policies. `enabled` is the plan's `threat_protection` flag (one source
 * for it, which `teams set --threat-protection` also writes); the rest is the policy row, over
 * the defaults of lib/threat/policy.ts.
 */
import { planColumns, resolvePlan } from '../../lib/plans.js';
import { DEFAULT_THREAT_POLICY, type ThreatPolicy } from '../../lib/threat/policy.js';
import type { Db } from '../connect.js';
import { findTeamPlan, saveTeamPlan } from './plans.js';

export async function readThreatPolicy(db: Db, teamId: string): Promise<ThreatPolicy> {
  const [planRow, row] = await Promise.all([
    findTeamPlan(db, teamId),
    db.selectFrom('team_threat_policies').select('policy').where('team_id', '=', teamId).executeTakeFirst(),
  ]);
  const { enabled: _ignored, ...stored } = (row?.policy ?? {}) as Partial<ThreatPolicy>;
  return { ...DEFAULT_THREAT_POLICY, ...stored, enabled: resolvePlan(planRow).threatProtection };
}

/** Replaces the team's policy, `enabled` included, in one transaction. */
export async function saveThreatPolicy(db: Db, teamId: string, policy: ThreatPolicy): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const plan = resolvePlan(await findTeamPlan(trx, teamId));
    if (plan.threatProtection !== policy.enabled) await saveTeamPlan(trx, { team_id: teamId, ...planColumns({ ...plan, threatProtection: policy.enabled }) });
    const { enabled: _flag, ...rest } = policy;
    await trx
      .insertInto('team_threat_policies')
      .values({ team_id: teamId, policy: JSON.stringify(rest) })
      .onConflict((oc) => oc.column('team_id').doUpdateSet({ policy: JSON.stringify(rest), updated_at: new Date() }))
      .execute();
  });
}
