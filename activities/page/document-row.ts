import type { NewDocument } from '../../db/schema.js';
import type { Document } from '../../scraper/scrape.js';

/** The documents row for a scraped page; the JSON is measured once for the 10 MiB status pages. */
export function completedDocumentRow(fields: {
  id: string;
  jobId: string;
  teamId: string;
  url: string;
  urlKey: string;
  document: Document;
  creditsUsed: number;
}): NewDocument {
  const body = JSON.stringify(fields.document);
  return {
    id: fields.id,
    job_id: fields.jobId,
    team_id: fields.teamId,
    url: fields.url,
    url_key: fields.urlKey,
    status: 'completed',
    document: body,
    size_bytes: Buffer.byteLength(body),
    credits_used: fields.creditsUsed,
  };
}
