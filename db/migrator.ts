import { Migrator, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration. Safe to run from several processes: kysely takes a lock. */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  return migrator.migrateToLatest();
}
