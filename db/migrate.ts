/** Entry: `npm run migrate`. Creates nothing but schema; exits non-zero when a migration fails. */
import { loadConfig } from '../lib/config.js';
import { createDb } from './connect.js';
import { migrateToLatest } from './migrator.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { maxConnections: 1 });
  try {
    const { error, results } = await migrateToLatest(db);
    for (const r of results ?? []) {
      console.log(`migration ${r.migrationName}: ${r.status}`);
    }
    if (error) {
      console.error('migration failed:', error);
      process.exitCode = 1;
    }
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
