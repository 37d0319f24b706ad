/**
 * Storage settings the migrations make, checked in the catalog of a freshly migrated database.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../../db/migrator.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb('trawl_migrations');
});

afterAll(async () => {
  await testDb?.drop();
});

describe('migrations', () => {
  it('compress page bodies with lz4 where the server has it, and run again as a no-op', async () => {
    const { rows } = await sql<{ column: string; compression: string }>`
      select attrelid::regclass || '.' || attname as column, attcompression as compression
      from pg_attribute
      where (attrelid = 'documents'::regclass and attname = 'document')
         or (attrelid = 'page_cache'::regclass and attname in ('document', 'outcome'))
      order by 1`.execute(testDb.db);
    // 'l' is lz4; Debian's and the official images' Postgres are built with it.
    expect(rows).toEqual([
      { column: 'documents.document', compression: 'l' },
      { column: 'page_cache.document', compression: 'l' },
      { column: 'page_cache.outcome', compression: 'l' },
    ]);
    const again = await migrateToLatest(testDb.db);
    expect(again.error).toBeUndefined();
    expect(again.results ?? []).toEqual([]);
  });
});
