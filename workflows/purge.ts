import { setCurrentDetails } from '@temporalio/workflow';
import type { PurgeExpiredResult } from '../activities/purge-expired.js';
import { maintenanceActivities } from './activities.js';

/**
 * Result retention, started by the `trawl-purge-expired` Schedule (worker/schedules.ts), so it
 * runs once per interval however many API or worker processes there are, and every run is
 * visible in the Temporal UI.
 */
export async function purgeExpiredWorkflow(): Promise<PurgeExpiredResult & { zeroDataRetentionHistories: number }> {
  const purged = await maintenanceActivities.purgeExpired();
  const zeroDataRetentionHistories = await maintenanceActivities.deleteZdrHistories();
  setCurrentDetails(`Purged ${purged.jobs} jobs, ${purged.media} media files, ${purged.tombstones} tombstones, ${zeroDataRetentionHistories} ZDR histories`);
  return { ...purged, zeroDataRetentionHistories };
}
