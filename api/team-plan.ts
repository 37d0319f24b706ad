import type { Response } from 'express';
import { readTeamStanding, type PeriodUsage } from '../db/repositories/usage.js';
import type { Db } from '../db/connect.js';
import { resolvePlan, type TeamPlan } from '../lib/plans.js';
import { authOf } from './middleware/auth.js';

export interface TeamStanding {
  plan: TeamPlan;
  /** Credits used this period when the request read the plan. */
  usage: PeriodUsage;
}

/**
 * The calling team's plan and credits used, read together once per request: the rate limit, the
 * credit check and the usage routes all need them.
 */
export async function teamStandingOf(db: Db, res: Response): Promise<TeamStanding> {
  const cached = res.locals.teamStanding as TeamStanding | undefined;
  if (cached) return cached;
  const { planRow, usage } = await readTeamStanding(db, authOf(res).teamId);
  const standing = { plan: resolvePlan(planRow), usage };
  res.locals.teamStanding = standing;
  return standing;
}
