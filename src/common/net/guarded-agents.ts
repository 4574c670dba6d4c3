import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import type { Agent as HttpAgent, AgentOptions as HttpAgentOptions } from 'node:http';
import type { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from 'node:https';
import { isIP, LookupFunction, Socket, TcpNetConnectOpts } from 'node:net';
import type { Duplex } from 'node:stream';

import type * as RequestFilteringAgent from 'request-filtering-agent';

import { METADATA_ADDRESSES } from './address-class';
import { addressRefusal, OutboundPolicy, policyKey } from './outbound-policy';

/*
 * request-filtering-agent ships as an ES module only. Node (>= 20.19) requires ES modules
 * natively, but Jest's CommonJS module runtime cannot (and stands in for `node:module` too), so
 * the package is loaded through Node's own require, taken from process.getBuiltinModule. In the
 * service this is the plain require; the types come from the package's declarations as usual.
 */
const filtering = process.getBuiltinModule('node:module').createRequire(__filename)(
  'request-filtering-agent',
) as typeof RequestFilteringAgent;

/** The connection was refused by the outbound policy; no socket was opened. */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

type ConnectionListener = (error: Error | null, socket: Duplex) => void;

/**
 * dns.lookup that refuses the host when any of its addresses is refused by the policy (a name
 * that also resolves to 10.0.0.1 is refused as a whole) and hands the connection exactly the
 * addresses it checked, so nothing resolves twice.
 */
function guardedLookup(policy: OutboundPolicy, inner: LookupFunction | undefined): LookupFunction {
  const resolve = (inner ?? dnsLookup) as typeof dnsLookup;
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) {
        return callback(err, '', 4);
      }
      if (addresses.length === 0) {
        return callback(new AddressRefusedError(hostname, `${hostname} has no address`), '', 4);
      }
      for (const a of addresses) {
        const refusal = addressRefusal(a.address, policy);
        if (refusal) {
          return callback(new AddressRefusedError(hostname, `${hostname}: ${refusal}`), '', 4);
        }
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      }
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The library's own rules for a policy: the second line behind ours (see createConnection). */
function libraryOptions(
  policy: OutboundPolicy,
): RequestFilteringAgent.RequestFilteringAgentOptions {
  return {
    // Public-only: every non-unicast range (ipaddr.js) is refused. Local development: private
    // ranges pass the library and our own lookup refuses link-local, metadata and the rest.
    allowPrivateIPAddress: policy.kind === 'local_development',
    allowMetaIPAddress: false,
    // Exact addresses only: the library matches CIDRs of one family and warns on the other.
    allowIPAddressList: [...policy.allowList],
    denyIPAddressList: [...METADATA_ADDRESSES],
  };
}

/**
 * Runs our policy on the connection before the library's: an IP literal host is judged here
 * (Node connects to literals without a lookup), a host name in the chained lookup. The library
 * then applies its own checks to the same host and addresses. A refusal becomes an
 * AddressRefusedError on the request; no socket is opened.
 */
function connectGuarded(
  policy: OutboundPolicy,
  options: TcpNetConnectOpts,
  listener: ConnectionListener | undefined,
  connect: (options: TcpNetConnectOpts, listener?: ConnectionListener) => Duplex,
): Duplex {
  const host = options.host;
  if (host !== undefined && isIP(host) !== 0) {
    const refusal = addressRefusal(host, policy);
    if (refusal) {
      const socket = new Socket();
      const error = new AddressRefusedError(host, refusal);
      if (listener) {
        listener(error, socket);
      } else {
        socket.destroy(error);
      }
      return socket;
    }
  }
  return connect({ ...options, lookup: guardedLookup(policy, options.lookup) }, listener);
}

class GuardedHttpAgent extends filtering.RequestFilteringHttpAgent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: HttpAgentOptions,
  ) {
    super({ ...options, ...libraryOptions(policy) });
  }

  override createConnection(options: TcpNetConnectOpts, listener?: ConnectionListener): Duplex {
    return connectGuarded(this.policy, options, listener, (o, l) => super.createConnection(o, l));
  }
}

class GuardedHttpsAgent extends filtering.RequestFilteringHttpsAgent {
  constructor(
    private readonly policy: OutboundPolicy,
    options: HttpsAgentOptions,
  ) {
    super({ ...options, ...libraryOptions(policy) });
  }

  override createConnection(options: TcpNetConnectOpts, listener?: ConnectionListener): Duplex {
    return connectGuarded(this.policy, options, listener, (o, l) => super.createConnection(o, l));
  }
}

export interface GuardedAgents {
  readonly policy: OutboundPolicy;
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

/**
 * One http and one https agent enforcing `policy`. Agents are long-lived (one per policy, not per
 * request) so keep-alive pools can be used: a pooled socket was checked when it connected, and
 * an agent only ever pools sockets its own policy admitted.
 */
export function createGuardedAgents(
  policy: OutboundPolicy,
  options: HttpAgentOptions = {},
): GuardedAgents {
  return {
    policy,
    http: new GuardedHttpAgent(policy, options),
    https: new GuardedHttpsAgent(policy, options),
  };
}

const MAX_CACHED_POLICIES = 16;
const cached = new Map<string, GuardedAgents>();

/**
 * The shared keep-alive agents of a policy. A handful of policies exist (they come from code, not
 * from requests); beyond MAX_CACHED_POLICIES the oldest pair is closed and dropped.
 */
export function sharedGuardedAgents(policy: OutboundPolicy): GuardedAgents {
  const key = policyKey(policy);
  let agents = cached.get(key);
  if (!agents) {
    if (cached.size >= MAX_CACHED_POLICIES) {
      const [oldestKey, oldest] = cached.entries().next().value as [string, GuardedAgents];
      oldest.http.destroy();
      oldest.https.destroy();
      cached.delete(oldestKey);
    }
    agents = createGuardedAgents(policy, { keepAlive: true, maxFreeSockets: 4 });
    cached.set(key, agents);
  }
  return agents;
}
