/**
 * Dashboard sessions and CSRF. Signing in takes an API key with the admin scope; the session is
 * an HttpOnly, SameSite=Strict cookie whose sha256 names a row in Postgres (so every API process
 * knows it), and every request re-reads the key: revoking it ends its sessions at once.
 *
 * Every state-changing form carries the session's CSRF token (`_csrf`), compared in constant
 * time. The sign-in form, which has no session yet, uses a signed double-submit cookie instead:
 * the cookie holds a random nonce and the form its HMAC under a server secret, so a pair the
 * client makes up (a cookie planted from a sibling subdomain and a matching field) is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { findActiveKeyOwner } from '../../db/repositories/api-keys.js';
import { deleteSession, findSession, insertSession, setSessionFlash } from '../../db/repositories/dashboard-sessions.js';
import { sha256Hex } from '../../lib/hash.js';
import { hashApiKey, keyAllows } from '../auth/api-keys.js';
import type { AppDeps } from '../deps.js';
import { noteKeyUse } from '../middleware/auth.js';
import type { Viewer } from './viewer.js';

export const SESSION_COOKIE = 'trawl_session';
export const SIGN_IN_COOKIE = 'trawl_sign_in';
const SESSION_HOURS = 12;

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}


export function sameToken(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The cookie's value, or undefined when it is absent or not decodable (a stray cookie is no cookie). */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The sign-in form's token for the nonce in its cookie. */
export function signInToken(secret: Buffer, nonce: string): string {
  return createHmac('sha256', secret).update(`dashboard-sign-in:${nonce}`).digest('base64url');
}

export function setCookie(req: Request, res: Response, base: string, name: string, value: string, maxAgeMs?: number): void {
  res.cookie(name, value, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: base, ...(maxAgeMs !== undefined && { maxAge: maxAgeMs }) });
}

export type SignInResult = { ok: true } | { ok: false; reason: string };

/** Opens a session for `key` when it is an active key with the admin scope. */
export async function signIn(deps: AppDeps, base: string, req: Request, res: Response, key: unknown): Promise<SignInResult> {
  const owner = typeof key === 'string' && key.trim() ? await findActiveKeyOwner(deps.db, hashApiKey(key.trim())) : undefined;
  if (!owner) return { ok: false, reason: 'That key is not valid (or it was revoked).' };
  if (!keyAllows(owner.scopes, 'admin')) return { ok: false, reason: 'That key has no admin scope: only admin keys may sign in.' };
  noteKeyUse(deps.db, owner);
  await openSession(deps, base, req, res, owner.keyId);
  return { ok: true };
}

async function openSession(deps: AppDeps, base: string, req: Request, res: Response, apiKeyId: string | null): Promise<string> {
  const token = randomToken();
  const csrfToken = randomToken();
  await insertSession(deps.db, { tokenHash: sha256Hex(token), apiKeyId, csrfToken, expiresAt: new Date(Date.now() + SESSION_HOURS * 3_600_000) });
  setCookie(req, res, base, SESSION_COOKIE, token);
  return csrfToken;
}

export async function signOut(deps: AppDeps, base: string, req: Request, res: Response): Promise<void> {
  const token = readCookie(req, SESSION_COOKIE);
  if (token) await deleteSession(deps.db, sha256Hex(token));
  res.clearCookie(SESSION_COOKIE, { path: base });
}

/**
 * Puts the Viewer in `res.locals.viewer`, or sends a GET to the sign-in page and refuses
 * anything else with 401. With AUTH=none a GET without a session gets one (it has no key).
 */
export function requireViewer(deps: AppDeps, base: string): RequestHandler {
  return async (req, res, next) => {
    const token = readCookie(req, SESSION_COOKIE);
    const tokenHash = token ? sha256Hex(token) : undefined;
    const session = tokenHash ? await findSession(deps.db, tokenHash) : undefined;
    const authOff = deps.config.auth === 'none';
    if (!session || (session.apiKeyId === null && !authOff)) {
      if (req.method !== 'GET') return void res.status(401).type('text').send('Sign in first.');
      if (authOff) {
        await openSession(deps, base, req, res, null);
        return void res.redirect(303, req.originalUrl);
      }
      return void res.redirect(303, `${base}/sign-in`);
    }
    const viewer: Viewer = {
      operator: authOff || (session.teamName === deps.config.dashboard.adminTeam),
      teamId: session.teamId,
      teamName: session.teamName,
      keyPrefix: session.keyPrefix,
      csrfToken: session.csrfToken,
      tokenHash: tokenHash!,
    };
    res.locals.viewer = viewer;
    // Shown once: read with the session, cleared now.
    if (session.flash && req.method === 'GET') {
      res.locals.flash = session.flash;
      await setSessionFlash(deps.db, tokenHash!, null);
    }
    next();
  };
}

export function viewerOf(res: Response): Viewer {
  return res.locals.viewer as Viewer;
}

/** Refuses a state-changing request whose `_csrf` field is not the session's token. */
export const requireCsrf: RequestHandler = (req, res, next) => {
  const body = req.body as Record<string, unknown> | undefined;
  if (!sameToken(body?._csrf, viewerOf(res).csrfToken)) {
    return void res.status(403).type('text').send('This form is out of date or was not sent by the dashboard (CSRF token missing or wrong). Reload the page and try again.');
  }
  next();
};

/** After a form: a message for the next page, then a redirect to it (post/redirect/get). */
export async function redirectWithFlash(deps: AppDeps, res: Response, to: string, message: string): Promise<void> {
  await setSessionFlash(deps.db, viewerOf(res).tokenHash, message);
  res.redirect(303, to);
}
