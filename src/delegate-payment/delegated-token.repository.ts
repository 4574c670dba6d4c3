import { Injectable } from '@nestjs/common';

import { agentParts } from '../accounts/agent.repository';
import { batchColumns, batchInsert, batchUpdate } from '../database/batch';
import { entityFromJson } from '../database/entity-from-json';
import { col, sql, SqlFragment, SqlOperand } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { query, Sql, statement } from '../database/sql';
import { QueuedStatement, Tx } from '../database/tx';
import type { MandateStatus } from '../mandates/mandate.entity';
import { mandateParts } from '../mandates/mandate.repository';
import { intentParts } from '../payments/payment-intent.repository';
import { DelegatedToken } from './delegated-token.entity';

/** A token a person can still stop (consent centre), with its merchant's name. */
export interface LiveTokenRow {
  id: string;
  merchant_agent_id: string;
  merchant_name: string;
  max_amount_paise: string;
  expires_at: Date;
  checkout_session_id: string;
  mandate_id: string;
  waiting_intent_id: string | null;
}

/** SQL on delegated_tokens for another owner's statement: fragments (see `agentParts`). */
export const tokenParts = {
  /** True when the token exists and is revoked. */
  isRevoked: (id: SqlOperand): SqlFragment =>
    sql`EXISTS (SELECT 1 FROM delegated_tokens t WHERE t.id = ${id} AND t.status = 'revoked')`,
  /** Who pays with the token: its buyer agent's id as a scalar subquery (NULL for no such token). */
  buyerOf: (id: SqlOperand): SqlFragment =>
    sql`(SELECT buyer_agent_id FROM delegated_tokens WHERE id = ${id})`,
  /** Whom the token pays: its merchant agent's id as a scalar subquery. */
  merchantOf: (id: SqlOperand): SqlFragment =>
    sql`(SELECT merchant_agent_id FROM delegated_tokens WHERE id = ${id})`,
  /** The mandate the token draws on, its id as a scalar subquery. */
  mandateOf: (id: SqlOperand): SqlFragment =>
    sql`(SELECT mandate_id FROM delegated_tokens WHERE id = ${id})`,
};

/**
 * The token FOR NO KEY UPDATE with its mandate's status (read, not locked: pay() locks the mandate
 * after the buyer agent, in the lock order): what a complete redeems, in one prepared statement.
 */
const lockWithMandateStatus = statement<
  Record<string, unknown> & { mandate_status: MandateStatus },
  [string]
>(
  sql`SELECT t.*, ${mandateParts.statusOf(col('t.mandate_id'))} AS mandate_status
     FROM delegated_tokens t WHERE t.id = $1 FOR NO KEY UPDATE OF t`,
);

/** A token under its row lock, with its mandate's status. */
export interface LockedToken {
  token: DelegatedToken;
  mandateStatus: MandateStatus;
}

/** The owner of delegated_tokens (docs/architecture.md "Table owners"); TokensStoreModule exports it. */
@Injectable()
export class DelegatedTokenRepository {
  constructor(
    private readonly tx: Tx,
    private readonly sql: Sql,
  ) {}

  /** Queues a new token's INSERT for the commit's one statement (nothing reads it back). */
  async insertAtCommit(token: DelegatedToken): Promise<void> {
    await this.tx.writeBeforeCommit('delegated_tokens.insert', token, insertTokens);
  }

  /** The token locked, with its mandate's status; null when there is no such token. */
  async lockWithMandateStatus(id: string): Promise<LockedToken | null> {
    const row = await this.sql.one(lockWithMandateStatus(id));
    return row
      ? {
          token: entityFromJson(this.tx.manager, DelegatedToken, row),
          mandateStatus: row.mandate_status,
        }
      : null;
  }

  /** Queues a redeemed token's `used` mark for the commit's one statement. */
  async markUsedAtCommit(id: string, usedAt: Date): Promise<void> {
    await this.tx.writeBeforeCommit('delegated_tokens.used', { id, usedAt }, markUsed);
  }

  find(id: string): Promise<DelegatedToken | null> {
    return this.tx.manager.findOneBy(DelegatedToken, { id });
  }

  /** SELECT … FOR NO KEY UPDATE (lock order: docs/architecture.md). */
  lock(id: string): Promise<DelegatedToken | null> {
    return this.tx.manager.findOne(DelegatedToken, {
      where: { id },
      lock: { mode: 'for_no_key_update' },
    });
  }

  /** A workspace's token, locked (a person revoking it). */
  lockInWorkspace(workspaceId: string, id: string): Promise<DelegatedToken | null> {
    return this.tx.manager.findOne(DelegatedToken, {
      where: { id, workspaceId },
      lock: { mode: 'for_no_key_update' },
    });
  }

  async markRevoked(id: string, at: Date): Promise<void> {
    await this.tx.manager.update(DelegatedToken, { id }, { status: 'revoked', revokedAt: at });
  }

  /**
   * The checkout session of the first token drawn on a mandate: for a one-time mandate (made by
   * delegate_payment with its token) the purchase the person is asked to authorise.
   */
  async firstCheckoutSessionIdOnMandate(mandateId: string): Promise<string | null> {
    const t = await this.tx.manager.findOne(DelegatedToken, {
      select: { id: true, checkoutSessionId: true },
      where: { mandateId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return t?.checkoutSessionId ?? null;
  }

  /** True when a token drawn on this mandate was spent. */
  wasSpentOnMandate(mandateId: string): Promise<boolean> {
    return this.tx.manager.exists(DelegatedToken, { where: { mandateId, status: 'used' } });
  }

  /**
   * The live tokens drawn on a mandate, locked (FOR NO KEY UPDATE, in id order) before the
   * mandate itself: tokens come before mandates in the lock order (docs/architecture.md).
   */
  async lockUsableOnMandate(mandateId: string): Promise<void> {
    await this.sql.rows(
      query<{ id: string }>(
        sql`SELECT id FROM delegated_tokens WHERE mandate_id = ${mandateId} AND status = 'usable'
             ORDER BY id FOR NO KEY UPDATE`,
      ),
    );
  }

  /** Revokes the live tokens drawn on a mandate; returns their ids. */
  async revokeUsableOnMandate(mandateId: string, now: Date): Promise<string[]> {
    const rows = await this.sql.rows(
      query<{ id: string }>(
        sql`UPDATE delegated_tokens SET status = 'revoked', revoked_at = ${now}
             WHERE mandate_id = ${mandateId} AND status = 'usable' RETURNING id`,
      ),
    );
    return rows.map((r) => r.id);
  }

  /**
   * Tokens a person can still stop, newest first: usable and unexpired, or spent on a payment that
   * still waits for approval.
   */
  listLive(workspaceId: string, now: Date, limit: number): Promise<LiveTokenRow[]> {
    return this.sql.rows(
      query<LiveTokenRow>(
        sql`SELECT * FROM (
         SELECT t.id, t.merchant_agent_id, ${agentParts.nameOf(col('t.merchant_agent_id'))} AS merchant_name,
                t.max_amount_paise, t.expires_at, t.checkout_session_id, t.mandate_id, t.status, t.created_at,
                ${intentParts.waitingOnToken(col('t.id'))} AS waiting_intent_id
           FROM delegated_tokens t
          WHERE t.workspace_id = ${workspaceId}
            AND (t.status = 'usable' AND t.expires_at > ${now} OR t.status = 'used')
       ) x
        WHERE x.status = 'usable' OR x.waiting_intent_id IS NOT NULL
        ORDER BY x.created_at DESC, x.id DESC
        LIMIT ${limit}`,
      ),
    );
  }
}

/** New delegated tokens as one INSERT (Tx.writeBeforeCommit; parallel arrays). */
const TOKEN_COLUMNS = batchColumns<DelegatedToken>({
  id: ['text', (r) => r.id],
  workspace_id: ['text', (r) => r.workspaceId],
  buyer_agent_id: ['text', (r) => r.buyerAgentId],
  protocol_key_id: ['text', (r) => r.protocolKeyId],
  mandate_id: ['text', (r) => r.mandateId],
  checkout_session_id: ['text', (r) => r.checkoutSessionId],
  merchant_agent_id: ['text', (r) => r.merchantAgentId],
  max_amount_paise: ['bigint', (r) => r.maxAmountPaise],
  // Stored upper case, as the entity's lowerCaseCurrency transformer writes it.
  currency: ['text', (r) => r.currency.toUpperCase()],
  expires_at: ['timestamptz', (r) => r.expiresAt],
  status: ['text', (r) => r.status],
  metadata: ['jsonb', (r) => r.metadata],
  created_at: ['timestamptz', (r) => r.createdAt],
});

function insertTokens(rows: DelegatedToken[]): QueuedStatement {
  return batchInsert('delegated_tokens', TOKEN_COLUMNS, rows);
}

/** The tokens a transaction redeemed, marked used by one UPDATE (Tx.writeBeforeCommit). */
const USED_COLUMNS = batchColumns<{ id: string; usedAt: Date }>({
  id: ['text', (r) => r.id],
  status: ['text', () => 'used'],
  used_at: ['timestamptz', (r) => r.usedAt],
});

function markUsed(rows: { id: string; usedAt: Date }[]): QueuedStatement {
  return batchUpdate('delegated_tokens', 'id', USED_COLUMNS, rows);
}

/** Erasure's reach into delegated_tokens: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const delegatedTokensPersonalRows = personalRows(
  'delegated_tokens',
  't.workspace_id = s.ws',
);
