/**
 * A caller's own proxy (Jina Reader's X-Proxy-Url) on its way from the API to the page's activity:
 * checked at the API, then sealed (lib/sealed-box.ts) with a server secret that both processes
 * read from Postgres (CALLER_PROXY_SECRET) and bound to the team, so the workflow input, and with
 * it Temporal's history, holds no credentials in plain form. The job row holds none at all
 * (api/job-start.ts leaves `sealedProxy` out of the options it stores), and nothing logs it.
 */
import { parseProxyUrl } from './proxy-config.js';
import { open, seal } from './sealed-box.js';

/** The name of the server secret (db/repositories/server-secrets.ts) the proxy is sealed with. */
export const CALLER_PROXY_SECRET = 'caller-proxy';

/** Schemes Jina takes that Trawl cannot chain to (the guard proxy speaks HTTP to its upstreams). */
const SOCKS = /^socks[45]?h?:\/\//i;

/** The proxy URL, `http(s)://[user:pass@]host:port`, or why it is refused (never quoting it). */
export function parseCallerProxy(raw: string): { url: string } | { problem: string } {
  if (SOCKS.test(raw.trim())) return { problem: 'SOCKS proxies are not supported; give an http:// or https:// proxy' };
  try {
    return { url: parseProxyUrl(raw.trim(), 'X-Proxy-Url') };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

const boxContext = (teamId: string): string => `caller-proxy\0${teamId}`;

export function sealCallerProxy(key: Buffer, teamId: string, url: string): string {
  return seal(key, boxContext(teamId), Buffer.from(url)).toString('base64');
}

/** Throws when the box was sealed for another team or with another key. */
export function openCallerProxy(key: Buffer, teamId: string, sealed: string): string {
  return open(key, boxContext(teamId), Buffer.from(sealed, 'base64')).toString('utf8');
}
