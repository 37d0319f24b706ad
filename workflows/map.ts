import { ApplicationFailure, setCurrentDetails } from '@temporalio/workflow';
import type { MapSiteInput, MapSiteResult } from '../activities/map.js';
import { MAP_DEFAULT_TIMEOUT_MS } from '../contracts/map-timeout.js';
import { pageActivities } from './activities.js';

export type MapWorkflowInput = MapSiteInput;

/**
 * A synchronous map (POST /v2/map, /v1/map): one activity, run under the page proxy so it gets the
 * map's deadline plus grace, heartbeats and the page retry policy. A workflow rather than a bare
 * activity so every map is visible in the Temporal UI like every other job.
 */
export async function mapWorkflow(input: MapWorkflowInput): Promise<MapSiteResult> {
  if (!input.url || !input.jobId) {
    throw ApplicationFailure.nonRetryable('mapWorkflow needs url and jobId', 'InvalidWorkflowInput');
  }
  setCurrentDetails(`Mapping ${input.url}`);
  const { mapSite } = pageActivities(input.options.timeout ?? MAP_DEFAULT_TIMEOUT_MS);
  const result = await mapSite(input);
  setCurrentDetails(`Mapped ${input.url}: ${result.count} links`);
  return result;
}
