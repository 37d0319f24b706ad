/**
 * `--cpu-prof` for processes we start through NODE_OPTIONS, where Node 20 refuses that flag:
 * loaded with `--import`, it starts the V8 profiler in each thread and writes
 * `CPU.bench.0.<pid>.<thread>.0.cpuprofile` (the file-name shape `--cpu-prof` uses) into
 * BENCH_CPU_PROF_DIR when the thread exits.
 *
 * Plain JavaScript: NODE_OPTIONS imports also run in worker threads (Temporal's workflow threads),
 * where no TypeScript loader is registered.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  // An in-thread session answers synchronously, so this works in an `exit` handler.
  process.on('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `CPU.bench.0.${process.pid}.${threadId}.0.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
