/**
 * changeTracking: the fresh markdown compared with the team's previous snapshot of the same URL
 * and tag, and recorded as the next one (wire reference §2.10). The json mode also compares what
 * the model extracts from each version; the extraction is stored with the snapshot, so the old
 * page is read by the model at most once.
 */
import { findPreviousSnapshot, recordSnapshot, type ChangeSnapshot } from '../../../db/repositories/change-history.js';
import type { FormatOf } from '../../../contracts/page-outputs.js';
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { normalizeUrl, urlKey } from '../../../lib/url/normalize.js';
import { extractJson } from '../../../llm/page-features.js';
import { changeTracking, type ChangeTracking } from '../../../scraper/change-tracking/change-tracking.js';
import { jsonChanges } from '../../../scraper/change-tracking/json-changes.js';
import type { EnrichContext, EnrichStep } from '../enrich-step.js';
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
    const key = {
      teamId: owner.teamId,
      urlKey: urlKey(normalizeUrl(url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false })),
      tag: tracked.tag ?? '',
    };
    const markdown = markdownOf(outcome);
    const seen = { markdown, statusCode: outcome.statusCode };
    const previous = await findPreviousSnapshot(deps.db, key, owner.jobId);
    const tracking = changeTracking(previous, seen, tracked.modes);
    const json = tracked.modes.includes('json') && tracking.changeStatus !== 'removed' ? await compareJson(ctx, tracked, previous, tracking) : undefined;
    outcome.document.changeTracking = json?.changes === undefined ? tracking : { ...tracking, json: json.changes };
    // A server error page is not the page's content: the next scrape compares with the last real one.
    if (outcome.statusCode < 500 && outcome.statusCode !== 429) await recordSnapshot(deps.db, key, owner.jobId, { ...seen, extraction: json?.current });
    return json?.credits ?? 0;
  },
};

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
