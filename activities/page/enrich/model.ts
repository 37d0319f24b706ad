/** What the model steps share: the configured model, metered into the token ledger, or a clear error. */
import { jobIsRunning } from '../../../db/repositories/jobs.js';
import { recordTokenUsage } from '../../../db/repositories/token-ledger.js';
import { NonRetryablePageError } from '../../../lib/errors.js';
import { meteredModel } from '../../../llm/metered.js';
import type { ModelClient } from '../../../llm/model-client.js';
import type { ActivityDeps } from '../../deps.js';
import { requireTokens } from '../team-budget.js';
import type { ScrapeOutcome } from '../../../scraper/scrape.js';

export interface TokenOwner {
  teamId: string;
  jobId: string | null;
}

/** The model for one feature's calls on behalf of a team (and job): every call's tokens are recorded. */
export function modelFor(deps: ActivityDeps, owner: TokenOwner, feature: string): ModelClient {
  // The API refuses these features without a model; a worker configured apart from its API lands here.
  if (!deps.llm) throw new NonRetryablePageError('LLM_NOT_CONFIGURED', 'This worker has no language model configured');
  const model = deps.llm.model;
  return meteredModel(
    deps.llm,
    (usage) => recordTokenUsage(deps.db, { ...owner, feature, model, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }),
    async () => {
      // An activity can outlive its job (a workflow that timed out does not cancel it): a job
      // that has ended makes no more model calls.
      if (owner.jobId && !(await jobIsRunning(deps.db, owner.jobId))) {
        throw new NonRetryablePageError('CONFLICT', 'The job has ended; no more model calls are made for it');
      }
      await requireTokens(deps.db, owner.teamId);
    },
  );
}

export function markdownOf(outcome: ScrapeOutcome): string {
  return typeof outcome.document.markdown === 'string' ? outcome.document.markdown : '';
}

/** Adds a warning to the Document, beside any it has. */
export function addWarning(outcome: ScrapeOutcome, warning: string | undefined): void {
  if (!warning) return;
  const existing = outcome.document.warning;
  outcome.document.warning = typeof existing === 'string' && existing ? `${existing} ${warning}` : warning;
}
