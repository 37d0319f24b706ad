import { Router, type RequestHandler } from 'express';
import { cancelOpenPages } from '../../db/repositories/crawl-pages.js';
import { finishJob } from '../../db/repositories/jobs.js';
import type { JobKind } from '../../db/schema.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { requireTeamJob } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';

/** DELETE /v{1,2}/crawl/:id, /v{1,2}/batch/scrape/:id and /v{1,2}/extract/:id */
export function jobCancelRoutes(deps: AppDeps): Router {
  const router = Router();
  const auth = guard(deps, 'crawl', 'crawl-status');
  for (const version of ['v1', 'v2']) {
    router.delete(`/${version}/crawl/:id`, ...auth, cancelJob(deps, 'crawl'));
    router.delete(`/${version}/batch/scrape/:id`, ...auth, cancelJob(deps, 'batch_scrape'));
    router.delete(`/${version}/extract/:id`, ...auth, cancelJob(deps, 'extract'));
  }
  return router;
}

function cancelJob(deps: AppDeps, kind: JobKind): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id);
    const job = await requireTeamJob(deps.db, authOf(res).teamId, id, [kind]);
    // The status flips here, before the workflow hears of it, so a status read right after the
    // DELETE already says cancelled; the workflow's own finish never overwrites it.
    if (!(await finishJob(deps.db, job.id, 'cancelled'))) {
      throw httpError(
        'CONFLICT',
        job.status === 'cancelled' ? 'Job is already cancelled' : `Job is already ${job.status}`,
      );
    }
    await cancelOpenPages(deps.db, job.id);
    await deps.temporal.workflow
      .getHandle(job.workflow_id)
      .cancel()
      .catch((err: unknown) => deps.log.warn({ err, jobId: job.id, workflowId: job.workflow_id, teamId: job.team_id }, 'cancel: workflow not cancellable'));
    deps.log.info({ jobId: job.id, workflowId: job.workflow_id, teamId: job.team_id, kind: job.kind }, 'job: cancelled');
    res.json({ status: 'cancelled' });
  };
}
