import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The key webhook payloads are signed with (X-Firecrawl-Signature); null means unsigned.
  await db.schema.alterTable('teams').addColumn('webhook_secret', 'text').execute().catch(ignoreDuplicateColumn);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('teams').dropColumn('webhook_secret').execute();
}

function ignoreDuplicateColumn(err: { code?: string }): void {
  // 42701: duplicate_column, left by an earlier run that stopped half way.
  if (err.code !== '42701') throw err;
}
