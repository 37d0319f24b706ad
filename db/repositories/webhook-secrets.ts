import type { Db } from '../connect.js';

/** A team is named by id (the activity) or by name (the admin CLI). */
export type TeamRef = { id: string } | { name: string };

/** The team's webhook signing secret, or null when its webhooks go out unsigned. */
export async function findWebhookSecret(db: Db, teamId: string): Promise<string | null> {
  const row = await db
    .selectFrom('teams')
    .select('webhook_secret')
    .where('id', '=', teamId)
    .executeTakeFirst();
  return row?.webhook_secret ?? null;
}

/** Sets (or with null, clears) the secret; false when no such team exists. */
export async function setWebhookSecret(db: Db, team: TeamRef, secret: string | null): Promise<boolean> {
  const query = db.updateTable('teams').set({ webhook_secret: secret });
  const result = await ('id' in team ? query.where('id', '=', team.id) : query.where('name', '=', team.name)).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
