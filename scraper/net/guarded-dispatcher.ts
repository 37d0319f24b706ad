/**
 * undici dispatchers that refuse to talk to addresses an AddressPolicy forbids. The check runs
 * on the connected socket's remote address inside the connector, so it holds for every request,
 * every redirect hop and every pooled connection made through the dispatcher.
 */
import { Agent, buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy.js';
import { guardedLookup, literalViolation, peerViolation } from './peer-guard.js';

export interface GuardedDispatcherOptions {
  policy: AddressPolicy;
  /** Accept self-signed and otherwise invalid certificates. */
  skipTlsVerification: boolean;
}

// Agents own connection pools, so one per distinct setting is shared by all scrapes.
const agents = new Map<AddressPolicy, Map<boolean, Agent>>();

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

/**
 * The shared dispatcher for these settings. Pass long-lived policies (addressPolicyFor returns
 * shared instances): each distinct function gets its own pool until closeGuardedDispatchers.
 */
export function guardedDispatcher(options: GuardedDispatcherOptions): Agent {
  let byTls = agents.get(options.policy);
  if (!byTls) {
    byTls = new Map();
    agents.set(options.policy, byTls);
  }
  let agent = byTls.get(options.skipTlsVerification);
  if (!agent) {
    agent = createGuardedAgent(options);
    byTls.set(options.skipTlsVerification, agent);
  }
  return agent;
}

/** Close every cached dispatcher (worker shutdown, test teardown). Later calls build new ones. */
export async function closeGuardedDispatchers(): Promise<void> {
  const all = [...agents.values()].flatMap((byTls) => [...byTls.values()]);
  agents.clear();
  await Promise.all(all.map((agent) => agent.close()));
}
