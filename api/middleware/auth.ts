import type { RequestHandler, Response } from 'express';
import { findActiveKeyOwner, touchApiKey, type KeyOwner } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import type { Db } from '../../db/connect.js';
import { hashApiKey, keyAllows, SCOPES, type Scope } from '../auth/api-keys.js';
import { httpError } from '../errors.js';

export interface AuthContext {
  teamId: string;
  /** Null when AUTH=none: there is no key to attribute usage to. */
  keyId: string | null;
  scopes: string[] | null;
}

/** The team that owns every request when AUTH=none. */
export const LOCAL_TEAM_NAME = 'local';

export function authOf(res: Response): AuthContext {
  return res.locals.auth as AuthContext;
}

/** A key's "last used" moves at most this often, so the lookup on every request stays a read. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Records that a key was used, at most once per granularity and process: the stored time says
 * whether it is due, and this process's own note stops a burst of requests that all read the
 * same stale time from each sending its update. Not awaited by the request: a lost update only
 * makes "last used" a minute older.
 */
export function keyUseNoter(touch: (db: Db, keyId: string) => Promise<void>) {
  const touched = new Map<string, number>();
  return (db: Db, owner: KeyOwner, onError: (err: unknown) => void = () => undefined): void => {
    const now = Date.now();
    const last = Math.max(owner.lastUsedAt?.getTime() ?? 0, touched.get(owner.keyId) ?? 0);
    if (now - last < LAST_USED_GRANULARITY_MS) return;
    touched.set(owner.keyId, now);
    touch(db, owner.keyId).catch(onError);
  };
}

export const noteKeyUse = keyUseNoter(touchApiKey);

export function authenticate(deps: { db: Db; mode: 'keys' | 'none' }): RequestHandler {
  if (deps.mode === 'none') {
    let localTeam: Promise<string> | undefined;
    return async (_req, res, next) => {
      localTeam ??= findOrCreateTeam(deps.db, LOCAL_TEAM_NAME).then((t) => t.id);
      try {
        // Without keys there is one operator, who may do everything.
        res.locals.auth = { teamId: await localTeam, keyId: null, scopes: [...SCOPES] } satisfies AuthContext;
      } catch (err) {
        localTeam = undefined;
        throw err;
      }
      next();
    };
  }
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    // Looked up on every request: a revoked key stops working at once on every API process.
    const owner = token ? await findActiveKeyOwner(deps.db, hashApiKey(token)) : undefined;
    if (!owner) throw httpError('UNAUTHORIZED', 'Unauthorized: Invalid token');
    noteKeyUse(deps.db, owner);
    res.locals.auth = { teamId: owner.teamId, keyId: owner.keyId, scopes: owner.scopes } satisfies AuthContext;
    next();
  };
}

export function requireScope(scope: Scope): RequestHandler {
  return (_req, res, next) => {
    const { scopes } = authOf(res);
    if (!keyAllows(scopes, scope)) {
      throw httpError('FORBIDDEN', `Forbidden: this API key may not use ${scope} endpoints`);
    }
    next();
  };
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
