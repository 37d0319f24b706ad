import type { Db } from '../../db/connect.js';
import { insertMedia } from '../../db/repositories/media.js';
import { mediaFileName, newMediaId } from '../../lib/media-files.js';
import type { MediaPublisher } from '../../scraper/media.js';

/**
 * Where a page's screenshots and PDFs go: into Postgres, linked under the API's `mediaBaseUrl`.
 * Written before the Document that links them, so a link never points at nothing; a file whose
 * Document is never stored (the page failed later) simply expires with the retention.
 * Undefined without a base URL, which leaves them inline as data: URIs.
 */
export function mediaPublisher(
  db: Db,
  owner: { jobId: string; teamId: string; mediaBaseUrl?: string },
): MediaPublisher | undefined {
  const { mediaBaseUrl } = owner;
  if (!mediaBaseUrl) return undefined;
  return async ({ data, mimeType }) => {
    const id = newMediaId();
    await insertMedia(db, { id, job_id: owner.jobId, team_id: owner.teamId, mime_type: mimeType, data });
    return `${mediaBaseUrl}/${mediaFileName(id, mimeType)}`;
  };
}
