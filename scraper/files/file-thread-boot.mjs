// A file-parsing thread's entry (isolated.ts). Node 20 gives a worker thread none of its parent's
// loader hooks, so this registers tsx's before loading the TypeScript thread.
import { register } from 'tsx/esm/api';

register();
await import('./file-thread.ts');
