import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, TimeoutFailure } from '@temporalio/common';
import { findDocument } from '../../db/repositories/documents.js';
import { findTeamJob, insertJob, setJobStatus } from '../../db/repositories/jobs.js';
import { fromFailure, TrawlError } from '../../lib/errors.js';
import { scrapeWorkflow } from '../../workflows/index.js';
import { JobKindAttribute, TeamIdAttribute } from '../../workflows/search-attributes.js';
import type { AppDeps } from '../app.js';
import { httpError } from '../errors.js';
import { authenticate, authOf, requireScope } from '../middleware/auth.js';
import { validateBody } from '../middleware/validate.js';
import { scrapeRequestSchema, type ScrapeRequest } from '../schemas/scrape.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';

/** How long after the scrape deadline the API stops waiting for a worker that went silent. */
const DEADLINE_GRACE_MS = 10_000;
const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;

export function scrapeRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post(
    '/v2/scrape',
    authenticate({ db: deps.db, mode: deps.config.auth }),
    requireScope('scrape'),
    validateBody(scrapeRequestSchema),
    async (_req, res) => {
      const { url, origin: _origin, integration: _integration, zeroDataRetention, ...options } =
        res.locals.body as ScrapeRequest;
      if (zeroDataRetention) {
        throw httpError('BAD_REQUEST', 'Zero data retention is not enabled for this team', {
          option: 'zeroDataRetention',
        });
      }
      assertScrapeOptionsSupported(options, deps.features);
      const { teamId } = authOf(res);
      const jobId = randomUUID();
      const deadline = Date.now() + options.timeout;
      const workflowId = `scrape-${jobId}`;
      await insertJob(deps.db, {
        id: jobId,
        team_id: teamId,
        kind: 'scrape',
        status: 'scraping',
        url,
        options: JSON.stringify(options),
        workflow_id: workflowId,
        updated_at: new Date(),
        expires_at: new Date(Date.now() + JOB_RETENTION_MS),
      });

      let documentId: string;
      try {
        const handle = await deps.temporal.workflow.start(scrapeWorkflow, {
          workflowId,
          taskQueue: deps.config.temporal.taskQueue,
          args: [{ jobId, teamId, url: absoluteHttpUrl(url)!, sourceUrl: url, options, deadline, documentId: jobId }],
          workflowExecutionTimeout: options.timeout + DEADLINE_GRACE_MS * 3,
          typedSearchAttributes: [
            { key: TeamIdAttribute, value: teamId },
            { key: JobKindAttribute, value: 'scrape' },
          ],
        });
        ({ documentId } = await withDeadline(handle.result(), deadline + DEADLINE_GRACE_MS, () =>
          handle.cancel().catch(() => undefined),
        ));
      } catch (err) {
        const failure = scrapeFailure(err, options.timeout);
        await setJobStatus(deps.db, jobId, 'failed', failure.message);
        throw failure;
      }
      const row = await findDocument(deps.db, documentId);
      if (!row?.document) throw new Error(`scrape ${jobId}: document ${documentId} missing after success`);
      await setJobStatus(deps.db, jobId, 'completed');
      res.json({ success: true, data: row.document });
    },
  );
  router.get(
    '/v2/scrape/:id',
    authenticate({ db: deps.db, mode: deps.config.auth }),
    requireScope('scrape'),
    async (req, res) => {
      const id = String(req.params.id);
      const job = UUID.test(id) ? await findTeamJob(deps.db, authOf(res).teamId, id) : undefined;
      const row = job?.kind === 'scrape' && job.status === 'completed' ? await findDocument(deps.db, id) : undefined;
      if (!row?.document) throw httpError('JOB_NOT_FOUND', 'Job not found');
      res.json({ success: true, data: row.document });
    },
  );
  return router;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function scrapeFailure(err: unknown, timeoutMs: number): Error {
  const known = fromFailure(err);
  if (known) return known;
  if (err instanceof TrawlError) return err;
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  if (cause instanceof TimeoutFailure || (cause instanceof ActivityFailure && cause.cause instanceof TimeoutFailure)) {
    return httpError('SCRAPE_TIMEOUT', `Scrape timed out after ${timeoutMs} ms`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

async function withDeadline<T>(work: Promise<T>, deadline: number, onExpire: () => unknown): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onExpire();
      reject(httpError('SCRAPE_TIMEOUT', 'Scrape timed out: no worker finished the page before the deadline'));
    }, Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
