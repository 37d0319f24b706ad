import pg from 'pg';
import { describeExit, spawnManaged, type LogSink } from './managed-process.js';

/** The URL without its password, for messages. */
export function redactUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

/**
 * Creates the database named in `databaseUrl` when it does not exist yet, by connecting to the
 * `postgres` database of the same server with the same credentials.
 */
export async function ensureDatabase(databaseUrl: string): Promise<{ created: boolean }> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name || name === 'postgres') return { created: false };
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(
      `Cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: ${(err as Error).message}. ` +
        'Start PostgreSQL, or set DATABASE_URL to a server you can reach.',
      { cause: err },
    );
  }
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount) return { created: false };
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    return { created: true };
  } catch (err) {
    const code = (err as { code?: string }).code;
    // 42P04: someone else created it between our check and our CREATE.
    if (code === '42P04') return { created: false };
    throw new Error(
      `Database "${name}" does not exist and could not be created: ${(err as Error).message}. ` +
        `Create it yourself (e.g. \`createdb ${name}\`) or use a user allowed to.`,
      { cause: err },
    );
  } finally {
    await client.end();
  }
}

export interface RunMigrationsOptions {
  databaseUrl: string;
  projectRoot: string;
  log: LogSink;
  signal?: AbortSignal;
}

/** Runs `db/migrate.ts` as its own process, exactly as `npm run migrate` would. */
export async function runMigrations(options: RunMigrationsOptions): Promise<void> {
  options.signal?.throwIfAborted();
  const child = await spawnManaged({
    name: 'migrate',
    command: process.execPath,
    args: ['--import', 'tsx', 'db/migrate.ts'],
    cwd: options.projectRoot,
    env: { ...process.env, DATABASE_URL: options.databaseUrl },
    log: options.log,
  });
  const onAbort = () => void child.stop(2_000);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await child.exited;
    options.signal?.throwIfAborted();
    if (exit.code !== 0) {
      throw new Error(`Migrations failed (${describeExit(exit)}). Output:\n${child.tail()}`);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
