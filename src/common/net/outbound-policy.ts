import { isIP } from 'node:net';

import { AddressClass, classifyAddress, isIpv4Mapped } from './address-class';

/**
 * Which addresses an outbound connection may reach (docs/documents.md "Documents and outbound fetches").
 * Enforced at connect time by the guarded agents (guarded-agents.ts), after DNS resolution, so a
 * host name cannot be re-pointed between a check and the connection.
 *
 * - `public_only`: only public unicast addresses; IPv4-mapped IPv6 spellings are refused too.
 *   User-supplied URLs (document fetches) and live-mode webhooks.
 * - `local_development`: sandbox/test webhooks, which local receivers on loopback or a private
 *   network must be able to get; link-local, cloud metadata, unspecified, multicast and reserved
 *   addresses are still refused.
 *
 * `allowList` admits exact IP addresses the class rules would refuse (tests' loopback listeners,
 * an operator-approved host); it never admits a metadata address.
 */
export interface OutboundPolicy {
  readonly kind: 'public_only' | 'local_development';
  readonly allowList: readonly string[];
}

const LOCAL_DEVELOPMENT_REFUSED: ReadonlySet<AddressClass> = new Set([
  'unspecified',
  'link_local',
  'metadata',
  'multicast',
  'reserved',
  'invalid',
]);

const DESCRIPTIONS: Record<AddressClass, string> = {
  public: 'a public address',
  private: 'a private address',
  loopback: 'a loopback address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  cgnat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  reserved: 'a reserved or special-purpose address',
  invalid: 'not an IP address',
};

function checkedAllowList(allowList: readonly string[]): readonly string[] {
  for (const address of allowList) {
    if (isIP(address) === 0) {
      throw new TypeError(`allowList takes exact IP addresses, not ${JSON.stringify(address)}`);
    }
  }
  return [...allowList].sort();
}

export function publicOnly(allowList: readonly string[] = []): OutboundPolicy {
  return { kind: 'public_only', allowList: checkedAllowList(allowList) };
}

export function localDevelopment(allowList: readonly string[] = []): OutboundPolicy {
  return { kind: 'local_development', allowList: checkedAllowList(allowList) };
}

/** A stable key per policy: one agent pair is kept per key. */
export function policyKey(policy: OutboundPolicy): string {
  return `${policy.kind}|${policy.allowList.join(',')}`;
}

/** Null when `address` (an IP, already resolved) may be connected to, else why not. */
export function addressRefusal(address: string, policy: OutboundPolicy): string | null {
  const cls = classifyAddress(address);
  if (cls === 'metadata') {
    return `${address} is ${DESCRIPTIONS[cls]}`;
  }
  if (policy.allowList.includes(address)) {
    return null;
  }
  if (policy.kind === 'local_development') {
    return LOCAL_DEVELOPMENT_REFUSED.has(cls) ? `${address} is ${DESCRIPTIONS[cls]}` : null;
  }
  if (cls !== 'public') {
    return `${address} is ${DESCRIPTIONS[cls]}`;
  }
  if (isIpv4Mapped(address)) {
    return `${address} is an IPv4-mapped IPv6 address (use the IPv4 address itself)`;
  }
  return null;
}
