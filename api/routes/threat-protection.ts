/** GET and PUT /v2/team/threat-protection: the team's policy, for keys with the `admin` scope. */
import { Router } from 'express';
import { threatPolicySchema } from '../../contracts/threat-policy.js';
import { readThreatPolicy, saveThreatPolicy } from '../../db/repositories/threat-policy.js';
import type { AppDeps } from '../deps.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { validatedBody } from '../middleware/validate.js';

export function threatProtectionRoutes(deps: AppDeps): Router {
  const router = Router();
  const checks = guard(deps, 'admin', 'crawl-status');
  const body = validatedBody(threatPolicySchema);
  router.get('/v2/team/threat-protection', ...checks, async (_req, res) => {
    res.json({ success: true, data: await readThreatPolicy(deps.db, authOf(res).teamId) });
  });
  router.put('/v2/team/threat-protection', ...checks, body, async (_req, res) => {
    const { teamId } = authOf(res);
    await saveThreatPolicy(deps.db, teamId, body.of(res));
    res.json({ success: true, data: await readThreatPolicy(deps.db, teamId) });
  });
  return router;
}
