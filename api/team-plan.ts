import type { Response } from 'express';
import { findTeamPlan } from '../db/repositories/plans.js';
import type { Db } from '../db/connect.js';
import { resolvePlan, type TeamPlan } from '../lib/plans.js';
import { authOf } from './middleware/auth.js';

/** The calling team's plan, read once per request (rate limit and credit checks both need it). */
export async function teamPlanOf(db: Db, res: Response): Promise<TeamPlan> {
  const cached = res.locals.teamPlan as TeamPlan | undefined;
  if (cached) return cached;
  const plan = resolvePlan(await findTeamPlan(db, authOf(res).teamId));
  res.locals.teamPlan = plan;
  return plan;
}
