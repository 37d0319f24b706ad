import type { PreviewCrawlParamsInput, PreviewCrawlParamsResult } from '../activities/preview-crawl-params.js';
import { modelActivities } from './activities.js';

/** POST /v2/crawl/params-preview: one model call, as an activity, so it is retried and visible like every job. */
export async function crawlParamsPreviewWorkflow(input: PreviewCrawlParamsInput): Promise<PreviewCrawlParamsResult> {
  return modelActivities.previewCrawlParams(input);
}
