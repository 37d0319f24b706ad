/** Entry: `npm run setup`, also run by `npm test` (pretest). Idempotent and fast once done. */
import { ensurePrerequisites } from './prerequisites.js';

ensurePrerequisites({ temporalCli: true }).catch((err: unknown) => {
  console.error(`[setup] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
