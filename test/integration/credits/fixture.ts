/** A fresh database per test file, with helpers to make teams, keys, jobs and pages to charge. */
import { randomUUID } from 'node:crypto';
import { insertApiKey } from '../../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import type { Db } from '../../../db/connect.js';
import type { NewDocument } from '../../../db/schema.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

export { createTestDb, type TestDb };

export async function newTeam(db: Db): Promise<{ teamId: string; keyId: string }> {
  const team = await findOrCreateTeam(db, `team-${randomUUID()}`);
  const key = await insertApiKey(db, { teamId: team.id, keyHash: randomUUID(), keyPrefix: 'fc-test', scopes: null });
  return { teamId: team.id, keyId: key.id };
}

export async function newJob(db: Db, team: { teamId: string; keyId: string | null }, kind: 'scrape' | 'crawl' = 'crawl') {
  const id = randomUUID();
  await db
    .insertInto('jobs')
    .values({
      id,
      team_id: team.teamId,
      kind,
      status: 'scraping',
      url: 'https://example.com/',
      options: JSON.stringify({}),
      workflow_id: `${kind}-${id}`,
      api_key_id: team.keyId,
      updated_at: new Date(),
      expires_at: new Date(Date.now() + 86_400_000),
    })
    .execute();
  return id;
}

export function documentRow(jobId: string, teamId: string, urlKey: string, credits = 1): NewDocument {
  return {
    id: randomUUID(),
    job_id: jobId,
    team_id: teamId,
    url: `https://example.com/${urlKey}`,
    url_key: urlKey,
    status: 'completed',
    document: JSON.stringify({ metadata: { creditsUsed: credits } }),
    size_bytes: 10,
    credits_used: credits,
  };
}

export async function ledgerTotal(db: Db, where: { teamId?: string; jobId?: string }): Promise<number> {
  let q = db.selectFrom('credit_ledger').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('credits'), eb.lit(0)).as('n'));
  if (where.teamId) q = q.where('team_id', '=', where.teamId);
  if (where.jobId) q = q.where('job_id', '=', where.jobId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
