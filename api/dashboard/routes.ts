/**
 * The dashboard, served by the API at DASHBOARD_PATH (default /dashboard): server-rendered pages
 * over the same repositories and modules as the API and the admin CLI (api/accounts.ts,
 * api/job-view.ts, api/routes/health.ts). Assets come from api/dashboard/assets; pages allow no
 * other origin (Content-Security-Policy).
 */
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { listApiKeys } from '../../db/repositories/api-keys.js';
import { listFailedDocuments, listRobotsBlockedUrls } from '../../db/repositories/crawl-read.js';
import { listDailyCredits, listDailyTokens } from '../../db/repositories/daily-usage.js';
import { findLiveJob, listJobs, readJobTotals } from '../../db/repositories/job-list.js';
import { findMonitor, listTeamMonitors } from '../../db/repositories/monitors.js';
import { listRefusalTotals } from '../../db/repositories/refusals.js';
import { findTeamById, listTeams } from '../../db/repositories/teams.js';
import { listTraceEvents } from '../../db/repositories/agent-runs.js';
import { readThreatPolicy } from '../../db/repositories/threat-policy.js';
import { JOB_STATUSES, type Job } from '../../db/schema.js';
import { AccountError, changePlan, createKey, createTeam, readStanding, replaceThreatPolicy, revokeKey, type CreatedKey } from '../accounts.js';
import type { AppDeps } from '../deps.js';
import { rememberedServerSecret } from '../../db/repositories/server-secrets.js';
import { isJobId, jobStatusView } from '../job-view.js';
import { readHealth } from '../routes/health.js';
import { html, type Html } from './html.js';
import { page, type PageFrame } from './layout.js';
import { adaptiveView } from '../monitor/view.js';
import { healthPage } from './pages/health.js';
import { monitorPage } from './pages/monitors.js';
import { JOBS_PER_PAGE, LISTED_KINDS, apiStatusPath, jobPage, jobsList, temporalUiLink } from './pages/jobs.js';
import { USAGE_DAYS, teamPage, teamsList } from './pages/teams.js';
import { SIGN_IN_COOKIE, randomToken, readCookie, redirectWithFlash, requireCsrf, requireViewer, sameToken, setCookie, signIn, signInToken, signOut, viewerOf } from './session.js';
import { canSeeTeam, visibleTeamIds } from './viewer.js';

const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));

/** Every page: nothing from another origin, no framing, no caching of what a session saw. */
const SECURITY_HEADERS: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy':
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
  next();
};

/** Monitors a team page lists; the API pages through the rest. */
const MONITORS_LISTED = 50;

const jobFilterSchema = z.object({
  team: z.uuid().optional().catch(undefined),
  kind: z.enum(LISTED_KINDS).optional().catch(undefined),
  status: z.enum(JOB_STATUSES).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
});

export function dashboardRoutes(deps: AppDeps): Router {
  const router = Router();
  const base = deps.config.dashboard.path;
  if (!base) return router;
  const authOff = deps.config.auth === 'none';
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  const viewer = requireViewer(deps, base);
  const signInSecret = () => rememberedServerSecret(deps.db, 'dashboard-sign-in');
  const guardPost = [form, viewer, requireCsrf];

  const send = (res: Response, frame: Omit<PageFrame, 'base' | 'authOff' | 'viewer' | 'flash'>, body: Html, status = 200) => {
    const v = res.locals.viewer ? viewerOf(res) : null;
    res.status(status).type('html').send(page({ ...frame, base, authOff, viewer: v, flash: res.locals.flash as string | undefined }, body).text);
  };
  const notFound = (res: Response) => send(res, { title: 'Not found' }, html`<h1>Not found</h1><p>There is nothing here, or it is not yours to see.</p>`, 404);

  router.use(base, SECURITY_HEADERS);
  router.use(`${base}/assets`, express.static(ASSETS, { index: false, maxAge: '1h' }));

  // --- Sign-in ---
  router.get(`${base}/sign-in`, (req, res) => signInPage(req, res));
  router.post(`${base}/sign-in`, form, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const nonce = readCookie(req, SIGN_IN_COOKIE);
    if (!nonce || !sameToken(body._csrf, signInToken(await signInSecret(), nonce))) return void res.status(403).type('text').send('The sign-in form is out of date (CSRF token missing or wrong). Reload it and try again.');
    const result = await signIn(deps, base, req, res, body.key);
    if (!result.ok) return signInPage(req, res, result.reason);
    res.clearCookie(SIGN_IN_COOKIE, { path: base });
    res.redirect(303, `${base}/`);
  });
  router.post(`${base}/sign-out`, ...guardPost, async (req, res) => {
    await signOut(deps, base, req, res);
    res.redirect(303, `${base}/sign-in`);
  });

  async function signInPage(req: Request, res: Response, error?: string) {
    const nonce = randomToken();
    const token = signInToken(await signInSecret(), nonce);
    setCookie(req, res, base!, SIGN_IN_COOKIE, nonce, 3_600_000);
    // A refused key is still a page the form shows; 200, so the browser reports no failed load.
    send(
      res,
      { title: 'Sign in' },
      html`<section class="card narrow">
  <h1>Sign in</h1>
  ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
  <form method="post" action="${base}/sign-in" data-testid="sign-in">
    <input type="hidden" name="_csrf" value="${token}">
    <label>API key with the admin scope<input name="key" type="password" autocomplete="off" required placeholder="fc-..."></label>
    <button>Sign in</button>
  </form>
  <p class="muted">No key yet? <code>npm run admin -- keys create --team ${deps.config.dashboard.adminTeam} --scopes admin</code> creates one that manages every team.</p>
</section>`,
    );
  }

  // --- Teams and keys ---
  router.get(`${base}/`, viewer, (_req, res) => {
    const v = viewerOf(res);
    res.redirect(303, v.operator || !v.teamId ? `${base}/teams` : `${base}/teams/${v.teamId}`);
  });

  router.get(`${base}/teams`, viewer, async (_req, res) => {
    const v = viewerOf(res);
    const teams = await listTeams(deps.db, v.operator ? undefined : v.teamId ? [v.teamId] : []);
    const summaries = await Promise.all(teams.map(async (team) => ({ team, standing: await readStanding(deps.db, team.id) })));
    send(res, { title: 'Teams', section: 'teams' }, teamsList(base, v, summaries));
  });

  router.post(`${base}/teams`, ...guardPost, async (req, res) => {
    if (!viewerOf(res).operator) return notFound(res);
    try {
      const team = await createTeam(deps.db, (req.body as Record<string, unknown>).name);
      await redirectWithFlash(deps, res, `${base}/teams/${team.id}`, `Team ${team.name} is ready. Create its first key below.`);
    } catch (err) {
      await formError(res, err, `${base}/teams`);
    }
  });

  /** The team named by `:teamId`, when the viewer may see it; otherwise a 404 page and undefined. */
  async function visibleTeam(req: Request, res: Response) {
    const id = String(req.params.teamId);
    const team = z.uuid().safeParse(id).success && canSeeTeam(viewerOf(res), id) ? await findTeamById(deps.db, id) : undefined;
    if (!team) notFound(res);
    return team;
  }

  async function renderTeam(req: Request, res: Response, created?: CreatedKey) {
    const team = await visibleTeam(req, res);
    if (!team) return;
    const [standing, keys, credits, tokens, refusals, threatPolicy, monitors] = await Promise.all([
      readStanding(deps.db, team.id),
      listApiKeys(deps.db, { id: team.id }),
      listDailyCredits(deps.db, team.id, USAGE_DAYS),
      listDailyTokens(deps.db, team.id, USAGE_DAYS),
      listRefusalTotals(deps.db, team.id, USAGE_DAYS),
      readThreatPolicy(deps.db, team.id),
      listTeamMonitors(deps.db, team.id, { limit: MONITORS_LISTED, offset: 0 }),
    ]);
    send(res, { title: team.name, section: 'teams' }, teamPage(base!, viewerOf(res), { team, standing, keys, credits, tokens, refusals, threatPolicy, monitors, created }));
  }

  router.get(`${base}/monitors/:monitorId`, viewer, async (req, res) => {
    const id = String(req.params.monitorId);
    const monitor = z.uuid().safeParse(id).success ? await findMonitor(deps.db, id) : undefined;
    if (!monitor || !canSeeTeam(viewerOf(res), monitor.team_id)) return notFound(res);
    const [team, urls] = await Promise.all([findTeamById(deps.db, monitor.team_id), adaptiveView(deps.db, monitor)]);
    send(res, { title: monitor.name, section: 'teams' }, monitorPage(base!, monitor, team?.name ?? '', urls));
  });

  router.get(`${base}/teams/:teamId`, viewer, (req, res) => renderTeam(req, res));

  router.post(`${base}/teams/:teamId/keys`, ...guardPost, async (req, res) => {
    const team = await visibleTeam(req, res);
    if (!team) return;
    try {
      // Rendered in this answer, never stored: the key is shown once.
      await renderTeam(req, res, await createKey(deps.db, team.id, (req.body as Record<string, unknown>).scopes));
    } catch (err) {
      await formError(res, err, `${base}/teams/${team.id}`);
    }
  });

  router.post(`${base}/teams/:teamId/keys/:keyId/revoke`, ...guardPost, async (req, res) => {
    const team = await visibleTeam(req, res);
    if (!team) return;
    const keyId = String(req.params.keyId);
    try {
      if (!z.uuid().safeParse(keyId).success) throw new AccountError('no such key');
      await revokeKey(deps.db, keyId, team.id);
      await redirectWithFlash(deps, res, `${base}/teams/${team.id}`, 'Key revoked: requests with it are refused from now on.');
    } catch (err) {
      await formError(res, err, `${base}/teams/${team.id}`);
    }
  });

  router.post(`${base}/teams/:teamId/plan`, ...guardPost, async (req, res) => {
    if (!viewerOf(res).operator) return notFound(res);
    const team = await visibleTeam(req, res);
    if (!team) return;
    const { _csrf: _token, 'clear-webhook-secret': clear, ...change } = req.body as Record<string, unknown>;
    // The form's secret field is blank unless typed into: blank keeps it, the checkbox removes it.
    if (clear) change['webhook-secret'] = '';
    else if (change['webhook-secret'] === '') delete change['webhook-secret'];
    try {
      await changePlan(deps.db, team.id, change);
      await redirectWithFlash(deps, res, `${base}/teams/${team.id}`, 'Plan saved; it applies to the next request.');
    } catch (err) {
      await formError(res, err, `${base}/teams/${team.id}`);
    }
  });

  router.post(`${base}/teams/:teamId/threat-policy`, ...guardPost, async (req, res) => {
    const team = await visibleTeam(req, res);
    if (!team) return;
    try {
      await replaceThreatPolicy(deps.db, team.id, String((req.body as Record<string, unknown>).policy ?? ''));
      await redirectWithFlash(deps, res, `${base}/teams/${team.id}`, 'Threat-protection policy saved.');
    } catch (err) {
      await formError(res, err, `${base}/teams/${team.id}`);
    }
  });

  /** A refused form: the reason on the page it came from (post/redirect/get). */
  async function formError(res: Response, err: unknown, back: string) {
    if (!(err instanceof AccountError)) throw err;
    await redirectWithFlash(deps, res, back, `Not saved: ${err.message}`);
  }

  // --- Jobs ---
  router.get(`${base}/jobs`, viewer, async (req, res) => {
    const v = viewerOf(res);
    const filter = jobFilterSchema.parse(req.query);
    const visible = await visibleTeamIds(deps.db, v);
    const teamIds = filter.team ? visible.filter((id) => id === filter.team) : visible;
    const { jobs, hasMore } = await listJobs(deps.db, {
      teamIds,
      kind: filter.kind,
      status: filter.status,
      offset: (filter.page - 1) * JOBS_PER_PAGE,
      limit: JOBS_PER_PAGE,
    });
    const teams = v.operator ? await listTeams(deps.db) : [];
    const temporalLink = (workflowId: string) => temporalUiLink(deps.config.dashboard.temporalUiUrl, deps.config.temporal.namespace, workflowId);
    send(res, { title: 'Jobs', section: 'jobs' }, jobsList(base, { jobs, hasMore, filter, teams, showTeam: v.operator, temporalLink }));
  });

  async function visibleJob(req: Request, res: Response): Promise<Job | undefined> {
    const id = String(req.params.jobId);
    const job = isJobId(id) ? await findLiveJob(deps.db, id) : undefined;
    return job && canSeeTeam(viewerOf(res), job.team_id) ? job : undefined;
  }

  router.get(`${base}/jobs/:jobId`, viewer, async (req, res) => {
    const job = await visibleJob(req, res);
    if (!job) return notFound(res);
    const listed = job.kind === 'crawl' || job.kind === 'batch_scrape';
    const [team, totals, progress, failed, robotsBlocked, trace] = await Promise.all([
      findTeamById(deps.db, job.team_id),
      readJobTotals(deps.db, job.id),
      listed ? jobStatusView(deps.db, job) : undefined,
      listed ? listFailedDocuments(deps.db, job.id) : undefined,
      job.kind === 'crawl' ? listRobotsBlockedUrls(deps.db, job.id) : undefined,
      job.kind === 'agent' ? listTraceEvents(deps.db, job.id) : undefined,
    ]);
    const temporalUrl = temporalUiLink(deps.config.dashboard.temporalUiUrl, deps.config.temporal.namespace, job.workflow_id);
    send(
      res,
      { title: `${job.kind} ${job.id}`, section: 'jobs' },
      jobPage(base, { job, teamName: team?.name ?? '', totals, temporalUrl, progress, failed, robotsBlocked, trace }),
    );
  });

  /** The job's status as JSON: a crawl's or batch's exactly as the API computes it (api/job-view.ts). */
  router.get(`${base}/jobs/:jobId/status.json`, viewer, async (req, res) => {
    const job = await visibleJob(req, res);
    if (!job) return void res.status(404).json({ success: false, error: 'Job not found', code: 'JOB_NOT_FOUND' });
    const listed = job.kind === 'crawl' || job.kind === 'batch_scrape';
    const figures = listed ? await jobStatusView(deps.db, job) : { status: job.status, ...(await readJobTotals(deps.db, job.id)) };
    res.json({
      success: true,
      id: job.id,
      kind: job.kind,
      workflowId: job.workflow_id,
      apiStatusPath: apiStatusPath(job),
      createdAt: job.created_at.toISOString(),
      completedAt: job.completed_at?.toISOString() ?? null,
      ...figures,
      ...(job.error && { error: job.error }),
    });
  });

  // --- Health ---
  router.get(`${base}/health`, viewer, async (_req, res) => {
    send(res, { title: 'Health', section: 'health' }, healthPage(await readHealth(deps)));
  });

  return router;
}
