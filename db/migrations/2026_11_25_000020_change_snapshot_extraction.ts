import { type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The json change-tracking mode's extraction of the snapshot, so the next scrape compares
  // answers without asking the model about the old page again.
  await db.schema
    .alterTable('change_snapshots')
    .addColumn('extraction', 'jsonb')
    .execute()
    .catch((err: { code?: string }) => {
      if (err.code !== '42701') throw err; // duplicate_column: already applied
    });
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_snapshots').dropColumn('extraction').execute();
}
