/**
 * changeTracking: the fresh markdown compared with the team's previous snapshot of the same URL
 * and tag, and recorded as the next one (wire reference §2.10). The json mode also compares what
 * the model extracts from each version; the extraction is stored with the snapshot, so the old
 * page is read by the model at most once.
 */
import { findPreviousSnapshot, recordSnapshot, type ChangeSnapshot, type SnapshotKey } from '../../../db/repositories/change-history.js';
import type { FormatOf } from '../../../contracts/page-outputs.js';
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { exactPageKey } from '../../../lib/url/normalize.js';
import { extractJson } from '../../../llm/page-features.js';
import { changeTracking, type ChangeTracking } from '../../../scraper/change-tracking/change-tracking.js';
import { jsonChanges } from '../../../scraper/change-tracking/json-changes.js';
import type { PageValidators } from '../../../scraper/scrape.js';
import type { ActivityDeps } from '../../deps.js';
import type { EnrichContext, EnrichStep } from './step.js';
import type { PageOwner } from '../fetch.js';
import { markdownOf, modelFor } from './model.js';

/** Without a schema or prompt, what the json mode asks the model to keep an eye on. */
export const DEFAULT_CHANGE_PROMPT =
  'Extract the facts a reader would want to know changed: the title, prices, dates, figures, names and key statements, as a flat JSON object.';

export const changeTrackingStep: EnrichStep = {
  name: 'changeTracking',
  appliesTo: (outputs) => outputs.changeTracking !== undefined,
  async run(ctx) {
    const { deps, owner, url, outputs, outcome } = ctx;
    const tracked = outputs.changeTracking!;
    const key = snapshotKey(owner, url, tracked.tag);
    const previous = await findPreviousSnapshot(deps.db, key, owner.jobId);
    // The server said the copy we hold is current: same, and the snapshot (with its validators) stays.
    if (outcome.notModified && previous) {
      outcome.document.changeTracking = { previousScrapeAt: previous.scrapedAt.toISOString(), changeStatus: 'same', visibility: 'visible' };
      return 0;
    }
    const markdown = markdownOf(outcome);
    const seen = { markdown, statusCode: outcome.statusCode, validators: outcome.validators };
    const tracking = changeTracking(previous, seen, tracked.modes, { ignoreNoise: ctx.changeDetection?.ignoreNoise, noise: tracked.noise });
    const json = tracked.modes.includes('json') && tracking.changeStatus !== 'removed' ? await compareJson(ctx, tracked, previous, tracking) : undefined;
    outcome.document.changeTracking = json?.changes === undefined ? tracking : { ...tracking, json: json.changes };
    // A server error page is not the page's content: the next scrape compares with the last real one.
    // A zero-data-retention page compares with what the team kept before and keeps nothing itself.
    const keep = !ctx.options.zeroDataRetention && outcome.statusCode < 500 && outcome.statusCode !== 429;
    if (keep) await recordSnapshot(deps.db, key, owner.jobId, { ...seen, extraction: json?.current });
    return json?.credits ?? 0;
  },
};

function snapshotKey(owner: Pick<PageOwner, 'teamId'>, url: string, tag: string | null | undefined): SnapshotKey {
  return {
    teamId: owner.teamId,
    urlKey: exactPageKey(url),
    tag: tag ?? '',
  };
}

/** The ETag / Last-Modified of the previous snapshot, for a monitor's conditional request. */
export async function previousValidators(
  deps: Pick<ActivityDeps, 'db'>,
  owner: Pick<PageOwner, 'teamId' | 'jobId'>,
  url: string,
  tag: string | null | undefined,
): Promise<PageValidators | undefined> {
  const previous = await findPreviousSnapshot(deps.db, snapshotKey(owner, url, tag), owner.jobId);
  // Only a page that was there: a 404's validators would make a returning page look unchanged.
  if (!previous?.validators || previous.statusCode >= 300) return undefined;
  return previous.validators;
}

async function compareJson(
  ctx: EnrichContext,
  tracked: FormatOf<'changeTracking'>,
  previous: ChangeSnapshot | undefined,
  tracking: ChangeTracking,
): Promise<{ current: unknown; changes?: ReturnType<typeof jsonChanges>; credits: number }> {
  // Unchanged markdown has the answer it had: no model call, nothing changed.
  if (tracking.changeStatus === 'same' && previous?.extraction !== undefined) return { current: previous.extraction, changes: {}, credits: 0 };
  const model = modelFor(ctx.deps, ctx.owner, 'changeTracking');
  const ask = async (markdown: string) =>
    (
      await extractJson(model, {
        markdown,
        prompt: tracked.prompt ?? (tracked.schema ? undefined : DEFAULT_CHANGE_PROMPT),
        schema: tracked.schema,
        signal: ctx.signal,
      })
    ).value;
  const current = await ask(markdownOf(ctx.outcome));
  const credits = CREDIT_COSTS.changeTrackingJson;
  if (tracking.changeStatus === 'new' || !previous) return { current, credits };
  if (tracking.changeStatus === 'same') return { current, changes: {}, credits };
  const before = previous.extraction !== undefined ? previous.extraction : await ask(previous.markdown);
  return { current, changes: jsonChanges(before, current), credits };
}
