import { ApplicationFailure, setCurrentDetails } from '@temporalio/workflow';
import type { MapRequest } from '../api/schemas/map.js';
import { pageActivities } from './activities.js';

/** The map's time budget when the request sets no `timeout`. */
export const MAP_DEFAULT_TIMEOUT_MS = 60_000;

export type MapOptions = Omit<MapRequest, 'url' | 'origin' | 'integration'>;

export interface MapSiteInput {
  jobId: string;
  /** Absolute start URL. */
  url: string;
  options: MapOptions;
  /** Epoch ms by which the map must be done, set by the API that accepted the request. */
  deadline: number;
}

/** Only the count: the links themselves (up to 100,000) are in the job row, far over Temporal's payload limit. */
export interface MapSiteResult {
  count: number;
}

export type MapWorkflowInput = MapSiteInput;

export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** What the map activity stores in `jobs.result` for the API to answer with. */
export interface MapJobResult {
  links: MapLink[];
  warning?: string;
}

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
