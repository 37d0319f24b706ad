import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { httpError } from '../errors.js';

/**
 * Parses the body with the route's schema; handlers read the parsed value from `res.locals.body`.
 * A bad `url` is reported as `Invalid URL`, as the specification's error table has it.
 */
export function validateBody(schema: z.ZodType): RequestHandler {
  return (req, res, next) => {
    const parsed = schema.safeParse(req.body ?? {});
    if (parsed.success) {
      res.locals.body = parsed.data;
      next();
      return;
    }
    const issues = parsed.error.issues;
    if (issues.some((i) => i.path[0] === 'url' || (i.path.length === 0 && i.message === 'Invalid URL'))) {
      next(httpError('INVALID_URL', 'Invalid URL', issues));
      return;
    }
    const summary = issues
      .slice(0, 5)
      .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
      .join('; ');
    next(httpError('BAD_REQUEST', `Bad Request: ${summary}`, issues));
  };
}
