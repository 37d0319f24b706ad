import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Like `which`: the first executable `name` in the directories of `env.PATH`. */
export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  isExec: (path: string) => boolean = isExecutable,
): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExec(candidate)) return candidate;
  }
  return undefined;
}
