import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

import type { Mode } from '../config/app.config';

/**
 * Where webhooks may be sent (SSRF guard). Live: https only, and every address the host resolves
 * to must be public; checked at registration and again on every delivery (the connection is
 * pinned to the checked addresses, so DNS rebinding between check and connect does not help).
 * Sandbox/test: http or https and loopback/private receivers are fine (local development), but
 * link-local addresses (cloud metadata at 169.254.169.254) are refused in every mode.
 */

function blockList(ranges: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix, type] of ranges) {
    list.addSubnet(net, prefix, type);
  }
  return list;
}

/** Refused in every mode. */
const ALWAYS_BLOCKED = blockList([
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
  ['fd00:ec2::', 32, 'ipv6'], // AWS metadata (IPv6)
]);

/** Also refused in live mode: everything that is not the public internet. */
const LIVE_BLOCKED = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // CGNAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64 (may embed a private IPv4)
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo, ORCHID…)
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4 (embeds an IPv4)
  ['fc00::', 7, 'ipv6'], // unique local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
]);

/** ::ffff:a.b.c.d and ::a.b.c.d are IPv4 behind an IPv6 spelling: judge the IPv4. */
function unmapped(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase();
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) {
    return { address: dotted[1], type: 'ipv4' };
  }
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, type: 'ipv4' };
  }
  return { address, type: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Null when the address may be called in this mode, else why not. */
export function addressRefusal(address: string, mode: Mode): string | null {
  const a = unmapped(address);
  if (ALWAYS_BLOCKED.check(a.address, a.type)) {
    return `${address} is a link-local, multicast or reserved address`;
  }
  if (mode === 'live' && LIVE_BLOCKED.check(a.address, a.type)) {
    return `${address} is a private, loopback, CGNAT or otherwise non-public address`;
  }
  return null;
}

export type UrlRefusal = { reason: string };

/** Host as the resolver wants it: URL keeps IPv6 literals in brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a URL against the mode's policy, resolving the host (all addresses). Returns the parsed
 * URL or the reason it is refused.
 */
export async function checkWebhookUrl(
  raw: string,
  mode: Mode,
  resolve: Resolver = systemResolver,
): Promise<URL | UrlRefusal> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'url must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      reason: `url must use https${mode === 'live' ? '' : ' or http'} (got ${url.protocol.replace(/:$/, '')})`,
    };
  }
  if (mode === 'live' && url.protocol !== 'https:') {
    return { reason: 'url must use https in live mode' };
  }
  if (url.username || url.password) {
    return {
      reason: 'url must not contain credentials; authenticate deliveries with the signing secret',
    };
  }
  const host = hostOf(url);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return { reason: `url host ${host} does not resolve` };
  }
  if (addresses.length === 0) {
    return { reason: `url host ${host} does not resolve` };
  }
  for (const address of addresses) {
    const refusal = addressRefusal(address, mode);
    if (refusal) {
      return { reason: `url host ${host} is not allowed: ${refusal}` };
    }
  }
  return url;
}
