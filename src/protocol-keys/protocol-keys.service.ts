import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { agentParts, AgentRepository } from '../accounts/agent.repository';
import { canBuy, canSell } from '../accounts/entities/agent.entity';
import { AuditActor, AuditLog } from '../common/audit';
import { CREDENTIAL_PREFIX } from '../common/auth/principal';
import { CredentialKind, RevocableCredentials } from '../common/credentials/revocable-credentials';
import { issueSecret } from '../common/crypto/secrets';
import { AppError, commonErrors } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { Page } from '../common/pagination';
import { parsePublicKey } from '../common/signing/public-key';
import { col, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { Tx } from '../database/tx';
import {
  recordConsentGiven,
  recordConsentWithdrawn,
} from '../personal-data/personal-data.repository';
import { ProtocolKey, ProtocolKeyRole } from './protocol-key.entity';
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

const PROTOCOL_KEYS: CredentialKind<ProtocolKey> = {
  entity: ProtocolKey,
  label: 'protocol key',
  auditPrefix: 'protocol_key',
};

/** The live key with this secret's hash whose agent is enabled, or null: the credential lookup. */
export function findLiveProtocolKeyByHash(
  m: EntityManager,
  hash: string,
): Promise<ProtocolKey | null> {
  return m
    .createQueryBuilder(ProtocolKey, 'k')
    .where(
      `k.secret_hash = :hash AND k.revoked_at IS NULL AND ${textOf(agentParts.isEnabled(col('k.agent_id')))}`,
      {
        hash,
      },
    )
    .getOne();
}

/** SQL on protocol_keys for another owner's statement (docs/architecture.md "Table owners"). */
export const protocolKeyParts = {
  /** True when the key exists and is not revoked. */
  live: (id: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM protocol_keys pk WHERE pk.id = ${id} AND pk.revoked_at IS NULL)`,
};

/** Personal data (src/personal-data): a workspace's protocol keys, and revoking them on erasure. */
export const personalDataProtocolKeys = {
  all(m: EntityManager, workspaceId: string): Promise<ProtocolKey[]> {
    return m.find(ProtocolKey, { where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  },
  /** Revokes every live key of the workspace and blanks all key names; returns the newly revoked ids. */
  async revokeAll(m: EntityManager, workspaceId: string, now: Date): Promise<string[]> {
    const rows = await m.query<{ id: string; was_live: boolean }[]>(
      `WITH u AS (UPDATE protocol_keys k SET revoked_at = COALESCE(k.revoked_at, $2), name = 'erased'
                    FROM protocol_keys old
                   WHERE k.id = old.id AND k.workspace_id = $1
               RETURNING k.id, old.revoked_at IS NULL AS was_live)
       SELECT id, was_live FROM u`,
      [workspaceId, now],
    );
    return rows.filter((r) => r.was_live).map((r) => r.id);
  },
};

/** Protocol keys (docs/security.md "Credentials"): issued with an API key or in the consent centre, shown once, revocable. */
@Injectable()
export class ProtocolKeysService {
  constructor(
    private readonly agents: AgentRepository,
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
      const key = m.create(ProtocolKey, {
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
      await m.insert(ProtocolKey, key);
      await this.audit.record(workspaceId, actor, 'protocol_key.created', key.id, {
        role: input.role,
        agent_id: agent.id,
      });
      const saved = await m.findOneByOrFail(ProtocolKey, { id: key.id });
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
