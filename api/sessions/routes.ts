/**
 * Live browser sessions, Firecrawl's routes: `/v2/browser` (also served as `/v2/interact`) to
 * create, list, read, execute in, replay and delete a session, and `/v2/scrape/{id}/interact` to
 * continue in the page a scrape left. Profiles are listed and deleted under `/v2/browser/profiles`.
 * Another team's session or profile answers exactly like a missing one.
 */
import { Router, type RequestHandler } from 'express';
import { listTeamBrowserSessions, findScrapeSession, listReplayFrames, readReplayFrame } from '../../db/repositories/browser-sessions.js';
import { deleteProfile, listProfiles } from '../../db/repositories/browser-profiles.js';
import { CommandRefused, parseAgentBrowser } from '../../contracts/agent-browser.js';
import { profileNameSchema } from '../../contracts/browser-profile.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { isJobId, requireTeamJob } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody } from '../middleware/validate.js';
import { assertModelConfigured } from '../unsupported-options.js';
import { browserCreateSchema, browserExecuteSchema, interactSchema, sessionListQuerySchema } from './schemas.js';
import { executeInSession, executeView, requireSession, sessionView, startSession, stopSession } from './sessions.js';

const SESSION_ROOTS = ['/v2/browser', '/v2/interact'];
const LIST_LIMIT = 100;

/** Checks a request's language and code before any session is touched: refusals are 400s. */
function checkCode(language: string, code: string | undefined): 'node' | 'bash' {
  if (language === 'python') throw httpError('UNSUPPORTED_OPTION', "Language 'python' is not supported by this server: use 'node' (JavaScript with a page object) or 'bash' (agent-browser commands)");
  if (language === 'bash' && code !== undefined) {
    try {
      parseAgentBrowser(code);
    } catch (err) {
      if (err instanceof CommandRefused) throw httpError('BAD_REQUEST', `Bad Request: ${err.message}`);
      throw err;
    }
  }
  return language as 'node' | 'bash';
}

export function browserRoutes(deps: AppDeps): Router {
  const router = Router();
  const write = guard(deps, 'scrape', 'scrape');
  const read = guard(deps, 'scrape', 'crawl-status');
  const create = validatedBody(browserCreateSchema);
  const execute = validatedBody(browserExecuteSchema);
  const interact = validatedBody(interactSchema);

  router.get('/v2/browser/profiles', ...read, async (_req, res) => {
    const profiles = await listProfiles(deps.db, authOf(res).teamId);
    res.json({ success: true, profiles: profiles.map((p) => ({ name: p.name, updatedAt: p.updated_at.toISOString() })) });
  });
  router.delete('/v2/browser/profiles/:name', ...write, async (req, res) => {
    const name = profileNameSchema.safeParse(String(req.params.name));
    if (!name.success) throw httpError('BAD_REQUEST', 'Profile name must be between 1 and 128 characters, without control characters.');
    if (!(await deleteProfile(deps.db, authOf(res).teamId, name.data))) throw httpError('NOT_FOUND', 'Profile not found.');
    res.json({ success: true });
  });

  router.post(SESSION_ROOTS, ...write, create, requireCredits(deps), async (req, res) => {
    const body = create.of(res);
    const started = await startSession(deps, req, res, { ttlS: body.ttl, activityTtlS: body.activityTtl, profile: body.profile, record: body.recordSession });
    res.json({ success: true, ...started });
  });
  router.get(SESSION_ROOTS, ...read, async (req, res) => {
    const query = sessionListQuerySchema.safeParse(req.query);
    if (!query.success) throw httpError('BAD_REQUEST', 'Bad Request: status must be active or destroyed');
    const sessions = await listTeamBrowserSessions(deps.db, authOf(res).teamId, query.data.status, LIST_LIMIT);
    res.json({ success: true, sessions: sessions.map(sessionView) });
  });
  router.get(SESSION_ROOTS.map((r) => `${r}/:id`), ...read, async (req, res) => {
    res.json({ success: true, ...sessionView(await requireSession(deps, res, String(req.params.id))) });
  });
  router.post(SESSION_ROOTS.map((r) => `${r}/:id/execute`), ...write, execute, async (req, res) => {
    const body = execute.of(res);
    const language = checkCode(body.language, body.code);
    const session = await requireSession(deps, res, String(req.params.id));
    const result = await executeInSession(deps, session, { language, code: body.code, timeoutMs: body.timeout * 1000 });
    res.json({ success: true, ...executeView(result) });
  });
  router.delete(SESSION_ROOTS.map((r) => `${r}/:id`), ...write, async (req, res) => {
    const { durationMs, credits } = await stopSession(deps, await requireSession(deps, res, String(req.params.id)));
    res.json({ success: true, status: 'destroyed', sessionDurationMs: durationMs, creditsBilled: credits });
  });
  router.get(SESSION_ROOTS.map((r) => `${r}/:id/replay`), ...read, async (req, res) => {
    const session = await requireSession(deps, res, String(req.params.id));
    const frames = await listReplayFrames(deps.db, session.id);
    const start = session.created_at.getTime();
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      success: true,
      pages: frames.map((f, i) => ({
        pageId: String(f.seq),
        url: `/v2/browser/${session.id}/replay/${f.seq}`,
        pageUrl: f.page_url,
        action: f.action,
        startTimeMs: (i === 0 ? start : frames[i - 1]!.at.getTime()) - start,
        endTimeMs: f.at.getTime() - start,
      })),
      pageCount: frames.length,
    });
  });
  router.get(SESSION_ROOTS.map((r) => `${r}/:id/replay/:pageId`), ...read, async (req, res) => {
    const pageId = String(req.params.pageId);
    if (!/^\d{1,6}$/.test(pageId)) throw httpError('BAD_REQUEST', 'Invalid pageId.');
    const session = await requireSession(deps, res, String(req.params.id));
    const image = await readReplayFrame(deps.db, session.id, Number(pageId));
    if (!image) throw httpError('NOT_FOUND', 'Replay not found.');
    // Frames are JPEG, except the PNGs of explicit `screenshot` commands.
    res.setHeader('Content-Type', image[0] === 0x89 ? 'image/png' : 'image/jpeg');
    res.setHeader('Cache-Control', 'no-store');
    res.send(image);
  });

  router.post('/v2/scrape/:id/interact', ...write, interact, requireCredits(deps), scrapeInteract(deps, interact));
  router.delete('/v2/scrape/:id/interact', ...write, async (req, res) => {
    const scrapeId = String(req.params.id);
    const session = isJobId(scrapeId) ? await findScrapeSession(deps.db, authOf(res).teamId, scrapeId) : undefined;
    if (!session) throw httpError('NOT_FOUND', 'Browser session not found.');
    const { durationMs, credits } = await stopSession(deps, session);
    res.json({ success: true, sessionDurationMs: durationMs, creditsBilled: credits });
  });
  return router;
}

function scrapeInteract(deps: AppDeps, interact: ReturnType<typeof validatedBody<typeof interactSchema>>): RequestHandler {
  return async (req, res) => {
    const body = interact.of(res);
    const language = checkCode(body.language, body.code);
    if (body.prompt !== undefined) assertModelConfigured(deps.features, 'An interact prompt', 'prompt');
    const { teamId } = authOf(res);
    const scrapeId = String(req.params.id);
    const scrape = await requireTeamJob(deps.db, teamId, scrapeId, ['scrape']);
    let session = await findScrapeSession(deps.db, teamId, scrapeId);
    if (!session) {
      const options = scrape.options as Partial<ScrapeOptions>;
      // Replayed as it was asked for (redirects and actions happen again), as Firecrawl does.
      if (!scrape.url) throw httpError('CONFLICT', 'Replay context is unavailable for this scrape job. Please rerun the scrape.');
      const { id } = await startSession(deps, req, res, {
        ttlS: body.ttl ?? 600,
        activityTtlS: body.activityTtl ?? 300,
        profile: options.profile,
        scrapeId,
        start: {
          url: scrape.url,
          ...(options.headers && { headers: options.headers }),
          ...(options.mobile && { mobile: true }),
          ...(options.waitFor && { waitForMs: options.waitFor }),
          ...(options.actions?.length && { actions: options.actions }),
        },
      });
      session = await requireSession(deps, res, id);
    }
    const result = await executeInSession(deps, session, { language, code: body.code, prompt: body.prompt, timeoutMs: body.timeout * 1000 });
    const view = executeView(result);
    res.json({ success: view.error === undefined, sessionId: session.id, ...view });
  };
}
