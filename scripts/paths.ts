import { fileURLToPath } from 'node:url';

/** The repository root, whatever directory the script was started from. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));
