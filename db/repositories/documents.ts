import type { Db } from '../connect.js';
import type { DocumentRow, NewDocument } from '../schema.js';
import { recordCharge, type LedgerCharge } from './ledger.js';

/**
 * Idempotent: a retried activity writing the same (job, url) again keeps the first row and gets
 * its id back, so a page is stored and counted once however often Temporal delivers the task.
 * The first insert and its charge commit together; a refused charge (CreditLimitReached) leaves
 * no document behind.
 */
export async function upsertDocument(
  db: Db,
  doc: NewDocument,
  charge?: LedgerCharge,
): Promise<{ id: string; inserted: boolean }> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('documents')
      .values(doc)
      .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) {
      if (charge) await recordCharge(trx, charge);
      return { id: inserted.id, inserted: true };
    }
    const existing = await trx
      .selectFrom('documents')
      .select('id')
      .where('job_id', '=', doc.job_id)
      .where('url_key', '=', doc.url_key)
      .executeTakeFirstOrThrow();
    return { id: existing.id, inserted: false };
  });
}

export async function findDocument(db: Db, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
}
