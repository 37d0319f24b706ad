/**
 * undici dispatchers that refuse to talk to addresses an AddressPolicy forbids. Direct, the check
 * runs on the connected socket's remote address inside the connector, so it holds for every
 * request, every redirect hop and every pooled connection made through the dispatcher.
 *
 * Through an upstream proxy the socket is the proxy's, so each request's target is resolved and
 * checked before it is sent instead (checkProxiedTarget, which documents the residual risk).
 * An operator's proxy is not checked itself: the operator configured it, and it is often local.
 * A caller's own proxy (X-Proxy-Url) is: see caller-proxy.ts.
 */
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, ProxyAgent, type Dispatcher } from 'undici';
import type { AddressPolicy } from './address-policy.js';
import { callerProxyLookup } from './caller-proxy.js';
import { checkProxiedTarget, guardedLookup, literalViolation, peerViolation } from './peer-guard.js';

export interface GuardedDispatcherOptions {
  policy: AddressPolicy;
  /** Accept self-signed and otherwise invalid certificates (of the target, never of the proxy). */
  skipTlsVerification: boolean;
  /**
   * Upstream proxy, `http(s)://[user:pass@]host:port`, that every request goes through.
   * @default undefined (direct connections)
   */
  proxy?: string;
}

// Agents own connection pools, so one per distinct setting is shared by all scrapes.
const agents = new Map<AddressPolicy, Map<string, Dispatcher>>();

function createGuardedAgent({ policy, skipTlsVerification }: GuardedDispatcherOptions): Agent {
  const connect = buildConnector({ rejectUnauthorized: !skipTlsVerification, lookup: guardedLookup(policy) });
  return new Agent({
    connect: (options, callback) => {
      const refused = literalViolation(options.hostname, policy);
      if (refused) {
        callback(refused, null);
        return;
      }
      connect(options, (err, socket) => {
        if (err) {
          callback(err, null);
          return;
        }
        const violation = peerViolation(socket, options.hostname, policy);
        if (violation) {
          socket.destroy();
          callback(violation, null);
          return;
        }
        callback(null, socket);
      });
    },
  });
}

/** Holds each request until its target passed checkProxiedTarget. */
function checkTargetFirst(policy: AddressPolicy): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    const { hostname } = new URL(options.origin ?? '');
    checkProxiedTarget(hostname, policy).then(
      () => dispatch(options, handler),
      (err: Error) => handler.onResponseError?.(null as never, err),
    );
    return true;
  };
}

type ProxiedOptions = GuardedDispatcherOptions & { proxy: string };

function createProxiedAgent({ policy, skipTlsVerification, proxy }: ProxiedOptions, proxyTls?: { lookup: LookupFunction }): Dispatcher {
  return new ProxyAgent({
    uri: proxy,
    // Plain-HTTP targets are sent in absolute form, not tunnelled: what Chromium does through a
    // proxy, so the proxy sees both engines alike. HTTPS targets are tunnelled with CONNECT.
    proxyTunnel: false,
    requestTls: { rejectUnauthorized: !skipTlsVerification },
    // Both of undici's ways to the proxy (its CONNECT client and its absolute-form client) dial with these.
    ...(proxyTls && { proxyTls }),
  }).compose(checkTargetFirst(policy));
}

/**
 * A dispatcher through a caller's own proxy (X-Proxy-Url), dialled through callerProxyLookup;
 * throws SSRF_BLOCKED for a proxy at a forbidden IP literal. Not cached, unlike guardedDispatcher:
 * callers name any number of proxies, each for its own request, so the caller destroys it after.
 */
export function callerProxyDispatcher(options: ProxiedOptions): Dispatcher {
  return createProxiedAgent(options, { lookup: callerProxyLookup(options.proxy, options.policy) });
}

/**
 * The shared dispatcher for these settings. Pass long-lived policies (addressPolicyFor returns
 * shared instances): each distinct function gets its own pool until closeGuardedDispatchers.
 */
export function guardedDispatcher(options: GuardedDispatcherOptions): Dispatcher {
  let bySettings = agents.get(options.policy);
  if (!bySettings) {
    bySettings = new Map();
    agents.set(options.policy, bySettings);
  }
  const key = `${options.skipTlsVerification} ${options.proxy ?? ''}`;
  let agent = bySettings.get(key);
  if (!agent) {
    const { proxy } = options;
    agent = proxy === undefined ? createGuardedAgent(options) : createProxiedAgent({ ...options, proxy });
    bySettings.set(key, agent);
  }
  return agent;
}

/** Close every cached dispatcher (worker shutdown, test teardown). Later calls build new ones. */
export async function closeGuardedDispatchers(): Promise<void> {
  const all = [...agents.values()].flatMap((bySettings) => [...bySettings.values()]);
  agents.clear();
  await Promise.all(all.map((agent) => agent.close()));
}
