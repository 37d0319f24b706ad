/**
 * GET /v2/team/activity: the team's jobs of the last 24 hours, newest first, as Firecrawl lists
 * them (`{success, data: [{id, endpoint, api_version, created_at, target}], cursor, has_more}`), so a
 * client can find a job id and read it through its own GET route.
 */
import { Router } from 'express';
import { z } from 'zod';
import { listTeamActivity } from '../../db/repositories/team-activity.js';
import { JOB_KINDS, type JobKind } from '../../db/schema.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { parseQuery } from '../middleware/validate.js';
import { teamActivityQuerySchema } from '../schemas/team-activity.js';

const WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a cursor carries: the last row's exact time and id, base64url JSON so it stays opaque. */
const cursorSchema = z.strictObject({ t: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/), id: z.uuid() });

export function teamActivityRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/v2/team/activity', ...guard(deps, 'usage', 'crawl-status'), async (req, res) => {
    const query = parseQuery(teamActivityQuerySchema, req);
    const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    // Endpoints Trawl does not serve (llmstxt, browser, ...) have no jobs to list.
    if (query.endpoint && !(JOB_KINDS as readonly string[]).includes(query.endpoint)) {
      res.json({ success: true, data: [], cursor: null, has_more: false });
      return;
    }
    const { rows, hasMore } = await listTeamActivity(deps.db, {
      teamId: authOf(res).teamId,
      kind: query.endpoint as JobKind | undefined,
      since: new Date(Date.now() - WINDOW_MS),
      before,
      limit: query.limit,
    });
    const last = rows.at(-1);
    res.json({
      success: true,
      data: rows.map((r) => ({
        id: r.id,
        endpoint: r.kind,
        // Jobs no request started (a monitor's) were started through v2's monitor route.
        api_version: r.apiVersion ?? 'v2',
        created_at: r.createdAt.toISOString(),
        target: r.target,
      })),
      cursor: hasMore && last ? Buffer.from(JSON.stringify({ t: last.cursorAt, id: last.id })).toString('base64url') : null,
      has_more: hasMore,
    });
  });
  return router;
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    raw = undefined;
  }
  const parsed = cursorSchema.safeParse(raw);
  if (!parsed.success) throw httpError('BAD_REQUEST', 'Bad Request: cursor: not a cursor this route returned', { option: 'cursor' });
  return { createdAt: parsed.data.t, id: parsed.data.id };
}
