import { isIP } from 'node:net';

import { Inject, Injectable } from '@nestjs/common';
import { parseDictionary } from 'structured-headers';

import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { classifyAddress } from '../common/net/address-class';
import { safeFetch } from '../common/net/safe-fetch';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { checkWebhookUrl, hostOf, Resolver, systemResolver } from '../webhooks/url-policy';
import { ucpErrors } from './ucp-errors';
import { CHECKOUT_CAPABILITY, ORDER_CAPABILITY, UCP_VERSION } from './ucp-profile';

/**
 * UCP negotiation (docs/ucp.md "Negotiation"): the platform names its profile in
 * `UCP-Agent: profile="https://…"`; we fetch it (bounded, cached), check it, and intersect its
 * capabilities with ours. Only checkout is ours, so the intersection is checkout or nothing.
 */

export const UCP_AGENT_HEADER = 'UCP-Agent';
const MAX_HEADER_CHARS = 2048;
const PROFILE_MAX_BYTES = 64 * 1024;
const PROFILE_TIMEOUT_MS = 5_000;
/** A good profile is kept this long (UCP asks for a floor of 60 s). */
const PROFILE_TTL_MS = 300_000;
/** A failed fetch is not retried for this long (backoff on repeated failures). */
const FAILURE_TTL_MS = 10_000;
const CACHE_ENTRIES = 256;

const VERSION = /^\d{4}-\d{2}-\d{2}$/;
const REVERSE_DOMAIN = /^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+$/;

/** What a request negotiated: what its response's `ucp` carries. */
export interface Negotiated {
  profileUrl: string;
  capabilities: Record<string, { version: string }[]>;
  /** The platform profile's `signing_keys` (JWKs; empty when it publishes none): ucp-request-signatures.ts. */
  signingKeys?: readonly Record<string, unknown>[];
}

export interface PlatformProfile {
  version: string;
  /** Each capability's entries as the platform wrote them (version, config, …). */
  capabilities: Record<string, ({ version: string } & Record<string, unknown>)[]>;
  signingKeys: readonly Record<string, unknown>[];
}

/** The profile URL of a UCP-Agent header (RFC 8941 dictionary, member `profile`, a string). */
export function profileUrlOf(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw ucpErrors.invalidProfileUrl(
      'Send UCP-Agent: profile="https://…" naming your platform profile',
    );
  }
  if (header.length > MAX_HEADER_CHARS) {
    throw ucpErrors.invalidProfileUrl(`UCP-Agent is longer than ${MAX_HEADER_CHARS} characters`);
  }
  let profile: unknown;
  try {
    profile = parseDictionary(header).get('profile');
  } catch {
    throw ucpErrors.invalidProfileUrl(
      'UCP-Agent is not an RFC 8941 dictionary: send profile="https://…"',
    );
  }
  const value = Array.isArray(profile) ? (profile[0] as unknown) : undefined;
  if (typeof value !== 'string' || value === '') {
    throw ucpErrors.invalidProfileUrl('UCP-Agent has no profile="…" string member');
  }
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Our structural check of a platform profile (the parts negotiation reads, on the rules of
 * discovery/profile_schema.json platform_profile); null when it holds, else what is wrong.
 */
export function profileDefect(doc: unknown): string | null {
  if (!isObject(doc) || !isObject(doc.ucp)) {
    return 'the profile has no ucp object';
  }
  const ucp = doc.ucp;
  if (typeof ucp.version !== 'string' || !VERSION.test(ucp.version)) {
    return 'ucp.version is not a YYYY-MM-DD version';
  }
  for (const registry of ['services', 'capabilities', 'payment_handlers'] as const) {
    const value = ucp[registry];
    if (value === undefined && registry === 'capabilities') {
      continue;
    }
    if (!isObject(value)) {
      return `ucp.${registry} is not an object`;
    }
    for (const [name, entries] of Object.entries(value)) {
      if (!REVERSE_DOMAIN.test(name)) {
        return `ucp.${registry} key ${name.slice(0, 80)} is not a reverse-domain name`;
      }
      if (!Array.isArray(entries)) {
        return `ucp.${registry}.${name} is not an array`;
      }
      for (const entry of entries) {
        if (!isObject(entry) || typeof entry.version !== 'string' || !VERSION.test(entry.version)) {
          return `an entry of ucp.${registry}.${name} has no YYYY-MM-DD version`;
        }
      }
    }
  }
  if (doc.signing_keys !== undefined) {
    if (
      !Array.isArray(doc.signing_keys) ||
      !doc.signing_keys.every(
        (k) => isObject(k) && typeof k.kid === 'string' && typeof k.kty === 'string',
      )
    ) {
      return 'signing_keys is not an array of JWKs with kid and kty';
    }
  }
  return null;
}

/** Fetch refusals that mean the URL itself is not one we call (the rest: it did not answer well). */
const URL_REFUSALS = new Set([
  'url_invalid',
  'url_not_https',
  'url_port_refused',
  'url_address_refused',
]);

type CacheEntry = { expiresAt: number; result: Promise<PlatformProfile> };

/** The system resolver, bounded: a name that does not resolve in time does not resolve. */
const boundedResolver: Resolver = (host) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), PROFILE_TIMEOUT_MS);
  });
  return Promise.race([systemResolver(host), late]).finally(() => clearTimeout(timer));
};

@Injectable()
export class UcpNegotiation {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Negotiates one request: its platform profile, version and capability intersection. */
  async negotiate(header: string | undefined): Promise<Negotiated> {
    const profileUrl = profileUrlOf(header);
    const profile = await this.profile(profileUrl);
    if (profile.version !== UCP_VERSION) {
      throw ucpErrors.versionUnsupported(profile.version);
    }
    const declares = (name: string) =>
      (profile.capabilities[name] ?? []).some((c) => c.version === UCP_VERSION);
    if (!declares(CHECKOUT_CAPABILITY)) {
      throw ucpErrors.capabilitiesIncompatible();
    }
    // The intersection of ours (checkout, order) with the platform's, at our version.
    const capabilities: Negotiated['capabilities'] = {
      [CHECKOUT_CAPABILITY]: [{ version: UCP_VERSION }],
    };
    if (declares(ORDER_CAPABILITY)) {
      capabilities[ORDER_CAPABILITY] = [{ version: UCP_VERSION }];
    }
    return { profileUrl, capabilities, signingKeys: profile.signingKeys };
  }

  /**
   * The platform profile, from the cache or fetched once (concurrent asks share one fetch): the
   * one negotiation read, for whoever needs more of it (the order webhook's URL, src/ucp/orders).
   */
  profile(url: string): Promise<PlatformProfile> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(url);
    if (cached && cached.expiresAt > now) {
      return cached.result;
    }
    this.cache.delete(url);
    const result = this.fetchProfile(url);
    const entry: CacheEntry = { expiresAt: now + PROFILE_TTL_MS, result };
    result.catch(() => {
      entry.expiresAt = Math.min(entry.expiresAt, this.clock.now().getTime() + FAILURE_TTL_MS);
    });
    this.cache.set(url, entry);
    while (this.cache.size > CACHE_ENTRIES) {
      this.cache.delete(this.cache.keys().next().value as string);
    }
    return result;
  }

  /**
   * The loopback addresses of a sandbox profile URL on this machine (a developer's local platform,
   * docs/ucp.md "Negotiation"): its host is a loopback IP literal, or `localhost` resolving only
   * to loopback addresses. Null for every other URL, which keeps the live rules.
   */
  private async sandboxLoopback(url: string): Promise<string[] | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password) {
      return null;
    }
    const host = hostOf(parsed);
    let addresses: string[];
    if (isIP(host) !== 0) {
      addresses = [host];
    } else if (host.toLowerCase() === 'localhost') {
      addresses = await boundedResolver(host).catch(() => []);
    } else {
      return null;
    }
    const loopback =
      addresses.length > 0 && addresses.every((a) => classifyAddress(a) === 'loopback');
    return loopback ? addresses : null;
  }

  /**
   * One bounded GET, on the outbound rules we use everywhere (src/webhooks/url-policy.ts,
   * src/common/net/safe-fetch.ts): https and public addresses only, no redirects, 64 KiB, 5 s.
   * MODE=test also admits http and loopback addresses (the tests' local profile servers);
   * MODE=sandbox admits http and any port for a loopback host only (a developer's local
   * platform), and keeps the live rules for every other URL; live mode never relaxes.
   */
  private async fetchProfile(url: string): Promise<PlatformProfile> {
    const loopback =
      this.config.mode === 'test'
        ? ['127.0.0.1', '::1']
        : this.config.mode === 'sandbox'
          ? await this.sandboxLoopback(url)
          : null;
    const local = loopback !== null;
    const checked = await checkWebhookUrl(url, local ? 'test' : 'live', boundedResolver);
    if ('reason' in checked) {
      throw ucpErrors.invalidProfileUrl(`The profile ${checked.reason}`);
    }
    let status: number;
    let body: Buffer;
    try {
      ({ status, body } = await safeFetch(url, {
        maxBytes: PROFILE_MAX_BYTES,
        timeoutMs: PROFILE_TIMEOUT_MS,
        maxRedirects: 0,
        allowedProtocols: local ? ['https:', 'http:'] : ['https:'],
        allowNonDefaultPorts: local,
        allowList: loopback ?? [],
      }));
    } catch (err) {
      if (err instanceof AppError && URL_REFUSALS.has(err.code)) {
        throw ucpErrors.invalidProfileUrl(`Profile URL refused: ${err.message}`);
      }
      if (err instanceof AppError && err.code === 'url_too_large') {
        throw ucpErrors.profileMalformed(`The profile is larger than ${PROFILE_MAX_BYTES} bytes`);
      }
      const reason = err instanceof Error ? err.message : 'unknown error';
      throw ucpErrors.profileUnreachable(`Unable to fetch the platform profile: ${reason}`);
    }
    if (status < 200 || status > 299) {
      throw ucpErrors.profileUnreachable(
        `Unable to fetch the platform profile: it answered HTTP ${status}`,
      );
    }
    let doc: unknown;
    try {
      doc = JSON.parse(body.toString('utf8'));
    } catch {
      throw ucpErrors.profileMalformed('The platform profile is not valid JSON');
    }
    const defect = profileDefect(doc);
    if (defect) {
      throw ucpErrors.profileMalformed(`The platform profile is invalid: ${defect}`);
    }
    const { ucp, signing_keys } = doc as {
      ucp: { version: string; capabilities?: PlatformProfile['capabilities'] };
      signing_keys?: Record<string, unknown>[];
    };
    return {
      version: ucp.version,
      capabilities: ucp.capabilities ?? {},
      signingKeys: signing_keys ?? [],
    };
  }
}
