import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

import {
  addressRefusal as policyRefusal,
  localDevelopment,
  OutboundPolicy,
  publicOnly,
} from '../common/net/outbound-policy';
import type { Mode } from '../config/app.config';

/**
 * Where webhooks may be sent (SSRF guard), on the same rules and library as every outbound fetch
 * (src/common/net/, docs/documents.md "Documents and outbound fetches"):
 * - live: https only, and every address the host resolves to must be public (`public_only`);
 * - sandbox/test: http or https, and loopback or private receivers are fine (local development,
 *   the tests' receivers on 127.0.0.1), but link-local, cloud metadata (169.254.169.254),
 *   unspecified, multicast and reserved addresses are refused (`local_development`).
 * Checked here at registration, for a clear 400, and again on every delivery at connect time by
 * the sender's guarded agents (request-filtering-agent after DNS resolution, so DNS rebinding
 * between check and connect does not help).
 */
const LIVE_POLICY = publicOnly();
const LOCAL_POLICY = localDevelopment();

export function webhookPolicy(mode: Mode): OutboundPolicy {
  return mode === 'live' ? LIVE_POLICY : LOCAL_POLICY;
}

/** Null when the address may be called in this mode, else why not. */
export function addressRefusal(address: string, mode: Mode): string | null {
  return policyRefusal(address, webhookPolicy(mode));
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
