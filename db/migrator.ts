import { Migrator, type MigrationResultSet } from 'kysely/migration';
import type { Db } from './connect.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration. Safe to run from several processes: kysely takes a lock. */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  // Unordered: features land from parallel branches, so a database may have run a later-named one first.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  return migrator.migrateToLatest();
}
