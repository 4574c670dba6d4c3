import { Injectable } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { canBuy, canSell } from '../accounts/entities/agent.entity';
import { AuditActor, AuditLog } from '../common/audit';
import { CREDENTIAL_PREFIX } from '../common/auth/principal';
import { RevocableCredentials } from '../common/credentials/revocable-credentials';
import { issueSecret } from '../common/crypto/secrets';
import { AppError, commonErrors } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { Page } from '../common/pagination';
import { parsePublicKey } from '../common/signing/public-key';
import { Tx } from '../database/tx';
import {
  recordConsentGiven,
  recordConsentWithdrawn,
} from '../personal-data/personal-data.repository';
import { ProtocolKey, ProtocolKeyRole } from './protocol-key.entity';
import { PROTOCOL_KEYS, ProtocolKeyRepository } from './protocol-key.repository';
import { ProtocolKeyResponse } from './protocol-keys.dto';

export function toProtocolKeyResponse(k: ProtocolKey, key?: string): ProtocolKeyResponse {
  return {
    id: k.id,
    object: 'protocol_key',
    role: k.role,
    agent_id: k.agentId,
    name: k.name,
    hint: k.hint,
    ...(key ? { key } : {}),
    public_key_alg: k.publicKeyAlg,
    created_at: k.createdAt.toISOString(),
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

/** Protocol keys (docs/security.md "Credentials"): issued with an API key or in the consent centre, shown once, revocable. */
@Injectable()
export class ProtocolKeysService {
  constructor(
    private readonly agents: AgentRepository,
    private readonly keys: ProtocolKeyRepository,
    private readonly tx: Tx,
    private readonly audit: AuditLog,
    private readonly credentials: RevocableCredentials,
  ) {}

  async create(
    workspaceId: string,
    input: { role: ProtocolKeyRole; agentId: string; name?: string; publicKey?: unknown },
    actor: AuditActor,
  ): Promise<ProtocolKeyResponse> {
    const pub =
      input.publicKey === undefined || input.publicKey === null
        ? null
        : parsePublicKey(input.publicKey, '$.public_key');
    const secret = issueSecret(CREDENTIAL_PREFIX.protocolKey);
    return this.tx.run(async (m) => {
      const agent = await this.agents.findInWorkspace(workspaceId, input.agentId);
      if (!agent || agent.disabledAt) {
        throw new AppError(
          404,
          'invalid_request',
          'not_found',
          `No agent ${input.agentId} in this workspace`,
          '$.agent_id',
        );
      }
      if (input.role === 'merchant' && !canSell(agent.role)) {
        throw commonErrors.invalid(
          '$.agent_id',
          `A merchant key must be bound to a seller agent; ${agent.id} is a ${agent.role}`,
        );
      }
      if (input.role === 'buyer' && !canBuy(agent.role)) {
        throw commonErrors.invalid(
          '$.agent_id',
          `A buyer key must be bound to a buyer agent; ${agent.id} is a ${agent.role}`,
        );
      }
      const key = await this.keys.insert({
        id: newId('pkey'),
        workspaceId,
        agentId: agent.id,
        role: input.role,
        name: input.name ?? `${input.role} key`,
        secretHash: secret.hash,
        hint: secret.hint,
        publicKeyPem: pub?.pem ?? null,
        publicKeyAlg: pub?.alg ?? null,
        revokedAt: null,
        lastUsedAt: null,
      });
      await this.audit.record(workspaceId, actor, 'protocol_key.created', key.id, {
        role: input.role,
        agent_id: agent.id,
      });
      const saved = await this.keys.byId(key.id);
      await recordConsentGiven(m, {
        workspaceId,
        personId: actor.type === 'person' ? actor.id : null,
        kind: 'protocol_key',
        subjectId: key.id,
        at: saved.createdAt,
      });
      return toProtocolKeyResponse(saved, secret.plaintext);
    });
  }

  list(
    workspaceId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<ProtocolKeyResponse>> {
    return this.credentials.list(PROTOCOL_KEYS, workspaceId, { limit, startingAfter }, (k) =>
      toProtocolKeyResponse(k),
    );
  }

  /** Effective on the very next request: the resolver ignores revoked keys. */
  async revoke(workspaceId: string, id: string, actor: AuditActor): Promise<ProtocolKeyResponse> {
    const key = await this.credentials.revoke(PROTOCOL_KEYS, workspaceId, id, actor);
    if (key.revokedAt) {
      await recordConsentWithdrawn(this.tx.manager, 'protocol_key', key.id, key.revokedAt);
    }
    return toProtocolKeyResponse(key);
  }
}
