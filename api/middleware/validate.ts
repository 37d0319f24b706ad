import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { httpError } from '../errors.js';
import { findBodyProblem } from './body-scan.js';

/**
 * A middleware that validates the request body, and the typed reader handlers mounted after it
 * use instead of casting `res.locals`: `const body = crawlBody.of(res)`.
 */
export interface ValidatedBody<T> extends RequestHandler {
  /** The parsed body of this request; throws if this middleware did not run before the caller. */
  of(res: Response): T;
}

/**
 * Parses the body with `schema`, after the rules every body shares (api/middleware/body-scan.ts).
 * A bad `url` is reported as `Invalid URL`, as the specification's error table has it.
 */
export function validatedBody<S extends z.ZodType>(schema: S): ValidatedBody<z.output<S>> {
  // Keyed by the response, so the value lives exactly as long as the request.
  const bodies = new WeakMap<Response, { value: z.output<S> }>();
  const middleware: RequestHandler = (req, res, next) => {
    const body: unknown = req.body ?? {};
    const problem = findBodyProblem(body);
    if (problem) {
      next(httpError('BAD_REQUEST', `Bad Request: ${problem.path}: ${problem.message}`, { path: problem.path }));
      return;
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) {
      bodies.set(res, { value: parsed.data });
      next();
      return;
    }
    next(validationError(parsed.error.issues));
  };
  return Object.assign(middleware, {
    of(res: Response): z.output<S> {
      const entry = bodies.get(res);
      if (!entry) throw new Error('validatedBody: read before the middleware ran for this request');
      return entry.value;
    },
  });
}

function validationError(issues: z.core.$ZodIssue[]) {
  if (issues.some((i) => i.path[0] === 'url' || (i.path.length === 0 && i.message === 'Invalid URL'))) {
    return httpError('INVALID_URL', 'Invalid URL', issues);
  }
  const summary = issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  return httpError('BAD_REQUEST', `Bad Request: ${summary}`, issues);
}

/** Parses the query string with `schema`; a bad parameter is a 400 naming it. */
export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return parseOrRefuse(schema, req.query);
}

/** Parses a request part that is not the body (query, headers); a bad value is a 400 naming it. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const summary = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw httpError('BAD_REQUEST', `Bad Request: ${summary}`, parsed.error.issues);
  }
  return parsed.data;
}
