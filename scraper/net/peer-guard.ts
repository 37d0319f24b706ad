/**
 * Where an address policy is enforced on a connection. The authoritative check is on the
 * connected socket: it sees the address really dialled, so DNS rebinding cannot slip past. The
 * checks before dialling (IP-literal hosts, filtered DNS answers) keep blocked addresses from
 * being dialled at all, so "blocked" never reveals whether something listens there (no port
 * scanning through the scraper), and a name with both public and private records connects to a
 * public one.
 *
 * Through an upstream proxy the connected socket is the proxy's, so the check moves before the
 * request: see checkProxiedTarget.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { AddressPolicy } from './address-policy.js';

/** `proxy`: the refused address is a caller's own proxy's (caller-proxy.ts), not the page's. */
export function ssrfBlockedError(host: string, address: string, { proxy = false } = {}): NonRetryablePageError {
  const target = `${proxy ? 'the proxy ' : ''}${host === address ? address : `${host} (${address})`}`;
  return new NonRetryablePageError(
    'SSRF_BLOCKED',
    `Blocked connection to ${target}: the address is not allowed (loopback, private, link-local, reserved or cloud metadata)`,
    { details: { host, address, ...(proxy && { proxy: true }) } },
  );
}

/**
 * RFC 6761 §6.3: `localhost` and every name under it are loopback, whatever DNS says. Browsers
 * resolve them that way, so both engines must agree (and the policy then decides, as for any
 * loopback address). The system resolver here only knows the bare `localhost`.
 */
const LOCALHOST_NAME = /(^|\.)localhost\.?$/i;

function resolve(hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void) {
  if (LOCALHOST_NAME.test(hostname)) {
    callback(null, [{ address: '127.0.0.1', family: 4 }]);
    return;
  }
  dnsLookup(hostname, { all: true }, callback);
}

/** A `net.connect` lookup that drops resolved addresses the policy forbids. */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, addresses) => {
      if (err) {
        callback(err, '');
        return;
      }
      const allowed = addresses.filter((entry) => policy(entry.address));
      const first = allowed[0];
      if (!first) {
        callback(ssrfBlockedError(hostname, addresses[0]?.address ?? 'no address'), '');
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

/** The error to refuse an IP-literal host with before dialling, or undefined for names and allowed IPs. */
export function literalViolation(host: string, policy: AddressPolicy): NonRetryablePageError | undefined {
  return isIP(host) !== 0 && !policy(host) ? ssrfBlockedError(host, host) : undefined;
}

/** The error to fail a freshly connected socket with, or undefined when its peer is allowed. */
export function peerViolation(socket: Socket, host: string, policy: AddressPolicy): NonRetryablePageError | undefined {
  // A socket reset before this check has no remote address; fail closed.
  const address = socket.remoteAddress;
  if (address !== undefined && policy(address)) return undefined;
  return ssrfBlockedError(host, address ?? 'unknown address');
}

/**
 * The check for a request sent through an upstream proxy, which connects to the target itself:
 * every address the target's name resolves to must be allowed, since the proxy may pick any of
 * them. A name that does not resolve here fails as a DNS error (fail closed).
 *
 * Residual risk: the proxy resolves the name again, so an answer that changes in between (DNS
 * rebinding) or differs on the proxy's network (split-horizon DNS) is not seen here, and the
 * request reaches whatever the proxy can reach. Upstream proxies therefore belong outside the
 * private network, or must refuse private targets themselves.
 */
export async function checkProxiedTarget(hostname: string, policy: AddressPolicy): Promise<void> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const refused = literalViolation(host, policy);
    if (refused) throw refused;
    return;
  }
  const addresses = await new Promise<{ address: string }[]>((done, fail) =>
    resolve(host, (err, found) => (err ? fail(err) : done(found))),
  );
  const blocked = addresses.find((entry) => !policy(entry.address));
  if (blocked || addresses.length === 0) throw ssrfBlockedError(host, blocked?.address ?? 'no address');
}
