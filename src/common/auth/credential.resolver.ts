import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { sha256Hex } from '../crypto/secrets';
import { AppError, commonErrors } from '../errors/app-error';
import { bearerOf } from './bearer';
import { CredentialCache } from './credential-cache';
import { CREDENTIAL_LOOKUP, CredentialLookup } from './credential-lookup';
import { KIND_LABEL, Principal, PrincipalKind } from './principal';

/**
 * Turns a bearer secret into a principal by looking up its SHA-256. Revoked keys and disabled
 * agents resolve to null, so a revocation takes effect on the very next request: a found
 * credential is reused from CredentialCache for a few seconds, and every revocation empties that
 * cache on every instance before it is answered (CredentialRevocations).
 */
@Injectable()
export class CredentialResolver {
  constructor(
    @Inject(CREDENTIAL_LOOKUP) private readonly credentials: CredentialLookup,
    private readonly cache: CredentialCache,
  ) {}

  /**
   * The opening every bearer guard shares: the request's Bearer credential, resolved, and of one
   * of the accepted kinds. Missing, unknown or revoked is 401; a valid credential of another kind
   * (e.g. a protocol key on /v1) is 403 `wrong_credential`. `noun` names what to send in the 401.
   */
  async requireBearer<K extends PrincipalKind>(
    req: Request,
    accepted: readonly K[],
    noun: string,
  ): Promise<Extract<Principal, { kind: K }>> {
    const secret = bearerOf(req);
    if (!secret) {
      throw commonErrors.unauthorized(`Send Authorization: Bearer <${noun}>`);
    }
    const principal = await this.resolve(secret);
    if (!principal) {
      throw commonErrors.unauthorized(
        `${noun[0].toUpperCase()}${noun.slice(1)} is unknown or revoked`,
      );
    }
    if (!(accepted as readonly PrincipalKind[]).includes(principal.kind)) {
      throw new AppError(
        403,
        'invalid_request',
        'wrong_credential',
        `This route takes ${accepted.map((k) => KIND_LABEL[k]).join(' or ')}, not ${KIND_LABEL[principal.kind]}`,
      );
    }
    return principal as Extract<Principal, { kind: K }>;
  }

  async resolve(secret: string): Promise<Principal | null> {
    const hash = sha256Hex(secret);
    const cached = this.cache.get(hash);
    if (cached) {
      return cached;
    }
    const epoch = this.cache.epoch;
    const principal = await this.lookup(secret, hash);
    if (principal) {
      this.cache.put(hash, principal, epoch);
    }
    return principal;
  }

  /** The credential's kind is told by its prefix (CREDENTIAL_PREFIX). */
  private async lookup(secret: string, hash: string): Promise<Principal | null> {
    if (secret.startsWith('sk_')) {
      return this.credentials.apiKey(hash);
    }
    if (secret.startsWith('agc_')) {
      return this.credentials.agent(hash);
    }
    if (secret.startsWith('acpk_')) {
      return this.credentials.protocolKey(hash);
    }
    return null;
  }
}
