/**
 * Rules every JSON request body obeys before any schema sees it, checked once here instead of in
 * each schema's string fields:
 * - no U+0000 and no unpaired UTF-16 surrogate in any string or key. Postgres refuses both (text
 *   and jsonb cannot hold NUL; jsonb refuses a lone `\ud800` escape), so such a value would fail
 *   far from the request that carried it, as a 500 or a failed workflow;
 * - no nesting deeper than MAX_BODY_DEPTH. Free-form fields (`webhook.metadata`, json `schema`)
 *   are stored and serialised recursively; a 10,000-deep object overflows the stack there.
 * The walk is iterative, so the deepest body cannot overflow it either.
 */

/** Object and array levels below the body itself. Real schemas and metadata stay far below it. */
export const MAX_BODY_DEPTH = 64;

export interface BodyProblem {
  /** Dotted path of the offending value, as zod reports paths (`webhook.headers.x-a`, `urls.3`). */
  path: string;
  message: string;
}

/** The first value in `body` that breaks a rule above, or undefined. */
export function findBodyProblem(body: unknown, maxDepth = MAX_BODY_DEPTH): BodyProblem | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) return { path: renderPath(path), message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= maxDepth) {
      return { path: renderPath(path), message: `nested deeper than ${maxDepth} levels` };
    }
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (typeof key === 'string') {
        const problem = stringProblem(key);
        if (problem) return { path: renderPath([...path, key]), message: `key ${problem}` };
      }
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

// Code units, not code points (no `u` flag): a high surrogate not followed by a low one, or a low
// one not preceded by a high one. (String.prototype.isWellFormed is ES2024, past our lib target.)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// eslint-disable-next-line no-control-regex -- NUL is exactly what this escapes for the error message.
const UNSAFE_CHARS = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function stringProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/** The path as text, with the characters it is about made visible instead of echoed raw. */
function renderPath(path: (string | number)[]): string {
  const escape = (key: string) =>
    key.replace(UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return path.length === 0 ? '(body)' : path.map((p) => (typeof p === 'number' ? String(p) : escape(p))).join('.');
}
