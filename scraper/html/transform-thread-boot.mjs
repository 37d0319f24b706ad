// A conversion thread's entry (transform-pool.ts). Node 20 gives a worker thread none of its
// parent's loader hooks, so this registers tsx's before loading the TypeScript thread; as a file,
// it finds tsx from where it lies, whatever the process's working directory.
import { register } from 'tsx/esm/api';

register();
await import('./transform-thread.ts');
