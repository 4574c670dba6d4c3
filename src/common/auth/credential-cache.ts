import { Inject, Injectable } from '@nestjs/common';

import { APP_CONFIG, AppConfig } from '../../config/app.config';
import type { Principal } from './principal';

/** Most credentials kept; the oldest entry makes room for a new one. */
export const CREDENTIAL_CACHE_MAX = 10_000;
/**
 * How long a credential being revoked is never cached (from the broadcast before its transaction
 * commits; the broadcast at commit ends the quarantine's purpose, this only bounds the map).
 */
export const QUARANTINE_MS = 60_000;

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * In-process cache of resolved bearer credentials (docs/operations.md "Running more than one instance"),
 * keyed by the secret's SHA-256 (never the secret), for CREDENTIAL_CACHE_TTL_MS (5 s), at most
 * CREDENTIAL_CACHE_MAX entries. Only found credentials are cached: a key created on another
 * instance works here at once.
 *
 * Revocation: `invalidate(ids)` drops every entry of those principals (and protocol keys of those
 * agents) and quarantines the ids so no lookup that started earlier can put them back; every
 * lookup records `epoch` first and `put` refuses when anything was invalidated since. Fail safe:
 * it caches only while `enabled` (CredentialRevocations turns it off, and empties it, whenever the
 * LISTEN connection that carries revocations is down).
 */
@Injectable()
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly quarantine = new Map<string, number>();
  private on = false;
  private invalidations = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.on;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Changes with every invalidation; take it before a lookup and hand it to `put`. */
  get epoch(): number {
    return this.invalidations;
  }

  setEnabled(on: boolean): void {
    this.on = on && this.config.credentialCacheTtlMs > 0;
    this.clear();
  }

  get(hash: string, now = Date.now()): Principal | null {
    if (!this.on) {
      return null;
    }
    const entry = this.entries.get(hash);
    if (!entry) {
      return null;
    }
    if (entry.expiresAt <= now) {
      this.entries.delete(hash);
      return null;
    }
    return { ...entry.principal };
  }

  put(hash: string, principal: Principal, epoch: number, now = Date.now()): void {
    if (!this.on || epoch !== this.invalidations || this.quarantined(principal, now)) {
      return;
    }
    if (!this.entries.has(hash) && this.entries.size >= CREDENTIAL_CACHE_MAX) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) {
        this.entries.delete(oldest.value);
      }
    }
    this.entries.set(hash, {
      principal: { ...principal },
      expiresAt: now + this.config.credentialCacheTtlMs,
    });
  }

  /** Principal ids (API key, agent, protocol key): their entries go, and stay out for QUARANTINE_MS. */
  invalidate(ids: readonly string[], now = Date.now()): void {
    this.invalidations++;
    for (const [id, until] of this.quarantine) {
      if (until <= now) {
        this.quarantine.delete(id);
      }
    }
    for (const id of ids) {
      this.quarantine.set(id, now + QUARANTINE_MS);
    }
    const gone = new Set(ids);
    for (const [hash, { principal }] of this.entries) {
      if (
        gone.has(principal.id) ||
        (principal.kind === 'protocol_key' && gone.has(principal.agentId))
      ) {
        this.entries.delete(hash);
      }
    }
  }

  clear(): void {
    this.invalidations++;
    this.entries.clear();
  }

  private quarantined(p: Principal, now: number): boolean {
    const ids = p.kind === 'protocol_key' ? [p.id, p.agentId] : [p.id];
    return ids.some((id) => (this.quarantine.get(id) ?? 0) > now);
  }
}
