import type http from 'node:http';

/**
 * The URL a test server was asked for, or undefined for one no URL can hold. A request path that
 * starts with `//` is still a path: `new URL(path, base)` would read what follows as a host, and
 * throw on a host such as a fuzzed one, taking the test run down with an uncaught exception.
 */
export function requestUrl(req: http.IncomingMessage, host = 'x'): URL | undefined {
  try {
    return new URL(`http://${host}${req.url ?? '/'}`);
  } catch {
    return undefined;
  }
}
