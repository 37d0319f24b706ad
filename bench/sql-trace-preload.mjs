/**
 * Counts the SQL statements a process sends (BENCH_SQL_TRACE_DIR set, with BENCH_PROFILE=1):
 * loaded with `--import` through NODE_OPTIONS, it wraps pg's `Client.prototype.query` and, when
 * the process exits, writes `sql.<pid>.json`: each statement's text (its first 160 characters,
 * parameters stay `$n`) with its count and the milliseconds callers waited for it in all. BEGIN
 * and COMMIT count as statements: each is a round trip.
 *
 * Plain JavaScript, like cpu-profile-preload.mjs: NODE_OPTIONS imports also run in worker threads.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.BENCH_SQL_TRACE_DIR;
if (dir && isMainThread) {
  // The application's own pg (CommonJS, so one module instance for both).
  const require = createRequire(join(process.cwd(), 'package.json'));
  let pg;
  try {
    pg = require('pg');
  } catch {
    pg = undefined;
  }
  if (pg) {
    const counts = new Map();
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (config, ...rest) {
      const text = typeof config === 'string' ? config : config?.text;
      const values = typeof config === 'string' ? rest[0] : config?.values;
      const result = original.call(this, config, ...rest);
      if (typeof text === 'string') {
        const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
        const entry = counts.get(key) ?? { n: 0, ms: 0, bytes: 0 };
        counts.set(key, entry);
        entry.n += 1;
        entry.bytes += Buffer.byteLength(text) + (Array.isArray(values) ? values.reduce((sum, v) => sum + byteLength(v), 0) : 0);
        // Round-trip time as the caller waits for it: the statement's work, its locks and its queueing.
        const started = performance.now();
        const done = () => (entry.ms += performance.now() - started);
        if (typeof result?.then === 'function') result.then(done, done);
      }
      return result;
    };
    const byteLength = (v) => (v == null ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : Buffer.isBuffer(v) ? v.length : Buffer.byteLength(JSON.stringify(v) ?? ''));
    process.on('exit', () => {
      writeFileSync(join(dir, `sql.${process.pid}.json`), JSON.stringify(Object.fromEntries(counts)));
    });
  }
}
