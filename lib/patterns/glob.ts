/**
 * `*` globs, matched in linear time. A glob turned into a backtracking RegExp (`*` → `.*`) costs
 * time that grows with the input to the power of its stars: `*a*a*a*a*a*a*b` on a 64-character
 * host took 4.1 s in V8, on the worker every team shares. Here a glob is split on `*` and its
 * literal pieces are found left to right: the first must start the input, the last must end it,
 * and each middle piece is taken at its leftmost place after the one before, which is always a
 * correct choice for `*`-only globs. That is at most one `indexOf` per piece.
 */

/** More stars than this in one glob is refused: no real domain or URL glob needs them. */
export const MAX_GLOB_STARS = 8;

export type GlobMatcher = (input: string) => boolean;

/** A message fit for a 400, or undefined when the glob is acceptable. */
export function globProblem(glob: string): string | undefined {
  const stars = glob.split('*').length - 1;
  if (stars > MAX_GLOB_STARS) return `at most ${MAX_GLOB_STARS} '*' are allowed in one pattern, got ${stars}`;
  return undefined;
}

/** The matcher for `glob`: `*` matches any run of characters (none included), the rest is literal. */
export function compileGlob(glob: string): GlobMatcher {
  const pieces = glob.split('*');
  if (pieces.length === 1) return (input) => input === glob;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  return (input) => {
    if (input.length < first.length + last.length || !input.startsWith(first) || !input.endsWith(last)) return false;
    const end = input.length - last.length;
    let at = first.length;
    for (const piece of middle) {
      const found = input.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

/**
 * A URL glob (`https://example.com/blog/*`) as extract's `urls` take it: any `http` or `https`
 * scheme, the glob's host and path matched with `*`, and with `includeSubdomains` any
 * subdomains before the host.
 */
export function compileUrlGlob(glob: string, includeSubdomains: boolean): GlobMatcher {
  // Parsed with the stars masked, so the host and path are the forms a parsed URL has.
  const url = new URL(glob.replaceAll('*', '__star__'));
  const matches = compileGlob(`${url.host}${url.pathname}${url.search}`.replaceAll('__star__', '*'));
  return (input) => {
    const rest = /^https?:\/\//.exec(input) ? input.slice(input.indexOf('//') + 2) : undefined;
    if (rest === undefined) return false;
    if (matches(rest)) return true;
    if (!includeSubdomains) return false;
    const hostEnd = rest.search(/[/?#]|$/);
    for (let dot = rest.indexOf('.'); dot >= 0 && dot < hostEnd; dot = rest.indexOf('.', dot + 1)) {
      if (matches(rest.slice(dot + 1))) return true;
    }
    return false;
  };
}
