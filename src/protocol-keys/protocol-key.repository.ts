import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { agentParts } from '../accounts/agent.repository';
import { CredentialKind } from '../common/credentials/revocable-credentials';
import { col, sql, SqlFragment, SqlOperand, textOf } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';
import { ProtocolKey } from './protocol-key.entity';

/** Protocol keys for RevocableCredentials (list, revoke). */
export const PROTOCOL_KEYS: CredentialKind<ProtocolKey> = {
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

/** SQL on protocol_keys for another owner's statement (docs/architecture.md "Table owners"). */
export const protocolKeyParts = {
  /** True when the key exists and is not revoked. */
  live: (id: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM protocol_keys pk WHERE pk.id = ${id} AND pk.revoked_at IS NULL)`,
};

/**
 * The owner of protocol_keys (docs/architecture.md "Table owners"), but for `protocolKeyParts`, still
 * in protocol-keys.service.ts while src/webhooks imports it from there.
 */
@Injectable()
export class ProtocolKeyRepository {
  constructor(private readonly tx: Tx) {}

  /** Inserts a protocol key and returns it. */
  async insert(fields: Partial<ProtocolKey>): Promise<ProtocolKey> {
    const m = this.tx.manager;
    const key = m.create(ProtocolKey, fields);
    await m.insert(ProtocolKey, key);
    return key;
  }

  /** The key with this id, as stored; throws when there is none. */
  byId(id: string): Promise<ProtocolKey> {
    return this.tx.manager.findOneByOrFail(ProtocolKey, { id });
  }
}

/** Erasure's reach into protocol_keys: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const protocolKeysPersonalRows = personalRows('protocol_keys', 't.workspace_id = s.ws');
