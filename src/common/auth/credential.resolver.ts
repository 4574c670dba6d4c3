import { Injectable } from '@nestjs/common';
import type { Request } from 'express';

import { findLiveApiKeyByHash } from '../../accounts/accounts.service';
import { findAgentByCredentialHash } from '../../accounts/agent.repository';
import { Agent } from '../../accounts/entities/agent.entity';
import { Tx } from '../../database/tx';
import { ProtocolKey } from '../../protocol-keys/protocol-key.entity';
import { findLiveProtocolKeyByHash } from '../../protocol-keys/protocol-keys.service';
import { sha256Hex } from '../crypto/secrets';
import { AppError, commonErrors } from '../errors/app-error';
import { bearerOf } from './bearer';
import { CredentialCache } from './credential-cache';
import { KIND_LABEL, Principal, PrincipalKind, RegisteredKey } from './principal';

/** The public key a credential registered (requests must then be signed), or null. */
function registeredKey(
  row: Pick<Agent | ProtocolKey, 'publicKeyPem' | 'publicKeyAlg'>,
): RegisteredKey | null {
  return row.publicKeyPem && row.publicKeyAlg
    ? { pem: row.publicKeyPem, alg: row.publicKeyAlg }
    : null;
}

/**
 * Turns a bearer secret into a principal by looking up its SHA-256. Revoked keys and disabled
 * agents resolve to null, so a revocation takes effect on the very next request: a found
 * credential is reused from CredentialCache for a few seconds, and every revocation empties that
 * cache on every instance before it is answered (CredentialRevocations).
 */
@Injectable()
export class CredentialResolver {
  constructor(
    private readonly tx: Tx,
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

  private async lookup(secret: string, hash: string): Promise<Principal | null> {
    const m = this.tx.manager;
    if (secret.startsWith('sk_')) {
      const key = await findLiveApiKeyByHash(m, hash);
      return key ? { kind: 'api_key', id: key.id, workspaceId: key.workspaceId } : null;
    }
    if (secret.startsWith('agc_')) {
      const agent = await findAgentByCredentialHash(m, hash);
      return agent
        ? {
            kind: 'agent',
            id: agent.id,
            workspaceId: agent.workspaceId,
            role: agent.role,
            publicKey: registeredKey(agent),
          }
        : null;
    }
    if (secret.startsWith('acpk_')) {
      const row = await findLiveProtocolKeyByHash(m, hash);
      return row
        ? {
            kind: 'protocol_key',
            id: row.id,
            workspaceId: row.workspaceId,
            agentId: row.agentId,
            role: row.role,
            publicKey: registeredKey(row),
          }
        : null;
    }
    return null;
  }
}
