import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { batchColumns, batchInsert, batchUpdate } from '../database/batch';
import { entityFromJson } from '../database/entity-from-json';
import { col, render, sql, SqlFragment, SqlOperand } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { query, Sql } from '../database/sql';
import { QueuedStatement, Tx } from '../database/tx';
import { offerParts } from '../seller/seller.repository';
import { CheckoutSession } from './checkout-session.entity';

/** SQL on checkout_sessions for another owner's statement (see `agentParts`). */
export const checkoutParts = {
  /** What delegate_payment checks of a session: id, status, expires_at, seller_agent_id. */
  facts: (id: SqlOperand): SqlFragment =>
    sql`SELECT id, status, expires_at, seller_agent_id FROM checkout_sessions WHERE id = ${id}`,
};

/**
 * The owner of checkout_sessions (docs/architecture.md "Table owners"): the only file that queries
 * the table (CheckoutStoreModule exports it); joins the ambient transaction (Tx).
 */
@Injectable()
export class CheckoutSessionRepository {
  constructor(
    private readonly tx: Tx,
    private readonly sql: Sql,
  ) {}

  /**
   * Queues the new session's INSERT for the commit's one statement (Tx.writeBeforeCommit): for a
   * transaction that does not read the session back.
   */
  async insertAtCommit(session: CheckoutSession): Promise<void> {
    await this.tx.writeBeforeCommit('checkout_sessions.insert', session, insertSessions);
  }

  findById(id: string): Promise<CheckoutSession | null> {
    return this.tx.manager.findOneBy(CheckoutSession, { id });
  }

  /**
   * Ids of this seller workspace's sessions that may still be paid or canceled (not completed,
   * canceled, expired or mid-complete), oldest first (no locks): what a closure cancels
   * (docs/architecture.md "Party lifecycle").
   */
  async liveOfWorkspace(workspaceId: string): Promise<string[]> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `SELECT id FROM checkout_sessions
        WHERE workspace_id = $1
          AND status IN ('not_ready_for_payment', 'ready_for_payment', 'pending_approval')
        ORDER BY created_at, id`,
      [workspaceId],
    );
    return rows.map((r) => r.id);
  }

  /** SELECT … FOR NO KEY UPDATE: every state change of a session runs under this lock (lock order: docs/architecture.md). */
  lockById(id: string, opts: { skipLocked?: boolean } = {}): Promise<CheckoutSession | null> {
    return this.tx.manager.findOne(CheckoutSession, {
      where: { id },
      lock: {
        mode: 'for_no_key_update',
        ...(opts.skipLocked ? { onLocked: 'skip_locked' as const } : {}),
      },
    });
  }

  /**
   * The session FOR NO KEY UPDATE and, in the same statement, whether each of its line items'
   * offers is still active (sku → active; a sku with no offer row is absent): the two reads a
   * complete makes before it pays (docs/testing.md "Tests", "SQL budgets"). The offers are read, not locked,
   * as `SellerService.findOffers` reads them.
   */
  async lockWithOfferStates(
    id: string,
  ): Promise<{ session: CheckoutSession; offers: Map<string, boolean> } | null> {
    const q = render(
      sql`WITH s AS (SELECT * FROM checkout_sessions WHERE id = ${id} FOR NO KEY UPDATE)
       SELECT row_to_json(s) AS session,
              ${offerParts.statesOf(
                col('s.seller_agent_id'),
                sql`SELECT l->>'sku' FROM jsonb_array_elements(s.line_items) AS l`,
              )} AS offers
         FROM s`,
    );
    const [row] = await this.sql.rows<{
      session: Record<string, unknown>;
      offers: { sku: string; active: boolean }[];
    }>(q);
    if (!row) {
      return null;
    }
    return {
      session: this.fromJson(row.session),
      offers: new Map(row.offers.map((o) => [o.sku, o.active])),
    };
  }

  /** lockById as one statement for PaymentIntentRepository.lockAfter (its $1 is the session id). */
  lockStatement(id: string): QueuedStatement {
    return { sql: 'SELECT * FROM checkout_sessions WHERE id = $1 FOR NO KEY UPDATE', params: [id] };
  }

  /** A session row as row_to_json gives it. */
  fromJson(row: Record<string, unknown>): CheckoutSession {
    return entityFromJson(this.tx.manager, CheckoutSession, row);
  }

  /** Sessions by id; unknown ids are left out. */
  findByIds(ids: string[]): Promise<CheckoutSession[]> {
    return ids.length === 0
      ? Promise.resolve([])
      : this.tx.manager.findBy(CheckoutSession, { id: In(ids) });
  }

  findByOrderId(orderId: string): Promise<CheckoutSession | null> {
    return this.tx.manager.findOneBy(CheckoutSession, { orderId });
  }

  /** The completed session of an order, if it is this seller's (an order's GET). */
  findCompletedOrder(orderId: string, sellerAgentId: string): Promise<CheckoutSession | null> {
    return this.tx.manager.findOneBy(CheckoutSession, {
      orderId,
      sellerAgentId,
      status: 'completed',
    });
  }

  /** Writes every mutable column of a locked session. */
  async save(s: CheckoutSession): Promise<void> {
    await this.tx.manager.update(CheckoutSession, { id: s.id }, {
      status: s.status,
      lineItems: s.lineItems,
      buyer: s.buyer,
      fulfillmentDetails: s.fulfillmentDetails,
      messages: s.messages,
      intentId: s.intentId,
      orderId: s.orderId,
      intentTrace: s.intentTrace,
      updatedAt: s.updatedAt,
      completedAt: s.completedAt,
      canceledAt: s.canceledAt,
    } as QueryDeepPartialEntity<CheckoutSession>);
  }

  /**
   * Queues the same write as `save` for the commit's one statement (Tx.writeBeforeCommit): for a
   * transaction that does not read the session back afterwards. A session queued twice is written
   * as it last stood.
   */
  async saveAtCommit(s: CheckoutSession): Promise<void> {
    await this.tx.writeBeforeCommit('checkout_sessions.update', s, updateSessions);
  }

  /**
   * Persists `expired` for an open session past its expiry. A single conditional UPDATE: it waits
   * for any writer's row lock and re-checks the status, so it can never overwrite a completion.
   */
  async expireIfDue(id: string, now: Date): Promise<boolean> {
    const expired = await this.sql.rows(
      query<{ id: string }>(
        sql`UPDATE checkout_sessions SET status = 'expired', updated_at = expires_at
             WHERE id = ${id} AND status IN ('ready_for_payment', 'not_ready_for_payment')
               AND expires_at <= ${now}
            RETURNING id`,
      ),
    );
    return expired.length > 0;
  }
}

/** Every column of checkout_sessions, named once (src/database/batch.ts). */
const SESSION_COLUMNS = batchColumns<CheckoutSession>({
  id: ['text', (r) => r.id],
  workspace_id: ['text', (r) => r.workspaceId],
  seller_agent_id: ['text', (r) => r.sellerAgentId],
  protocol_key_id: ['text', (r) => r.protocolKeyId],
  status: ['text', (r) => r.status],
  // Stored upper case, as the entity's lowerCaseCurrency transformer writes it.
  currency: ['text', (r) => r.currency.toUpperCase()],
  line_items: ['jsonb', (r) => r.lineItems],
  buyer: ['jsonb', (r) => r.buyer],
  fulfillment_details: ['jsonb', (r) => r.fulfillmentDetails],
  messages: ['jsonb', (r) => r.messages],
  intent_id: ['text', (r) => r.intentId],
  order_id: ['text', (r) => r.orderId],
  intent_trace: ['jsonb', (r) => r.intentTrace],
  created_at: ['timestamptz', (r) => r.createdAt],
  updated_at: ['timestamptz', (r) => r.updatedAt],
  expires_at: ['timestamptz', (r) => r.expiresAt],
  completed_at: ['timestamptz', (r) => r.completedAt],
  canceled_at: ['timestamptz', (r) => r.canceledAt],
});

/** The mutable columns `save` writes, by id. */
const MUTABLE_COLUMNS = batchColumns<CheckoutSession>({
  id: SESSION_COLUMNS.id,
  status: SESSION_COLUMNS.status,
  line_items: SESSION_COLUMNS.line_items,
  buyer: SESSION_COLUMNS.buyer,
  fulfillment_details: SESSION_COLUMNS.fulfillment_details,
  messages: SESSION_COLUMNS.messages,
  intent_id: SESSION_COLUMNS.intent_id,
  order_id: SESSION_COLUMNS.order_id,
  intent_trace: SESSION_COLUMNS.intent_trace,
  updated_at: SESSION_COLUMNS.updated_at,
  completed_at: SESSION_COLUMNS.completed_at,
  canceled_at: SESSION_COLUMNS.canceled_at,
});

/** New sessions as one INSERT. */
function insertSessions(rows: CheckoutSession[]): QueuedStatement {
  return batchInsert('checkout_sessions', SESSION_COLUMNS, rows);
}

/** Every mutable column of locked sessions as one UPDATE (the columns `save` writes). */
function updateSessions(queued: CheckoutSession[]): QueuedStatement {
  return batchUpdate('checkout_sessions', 'id', MUTABLE_COLUMNS, queued);
}

/** Erasure's reach into checkout_sessions: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const checkoutSessionsPersonalRows = personalRows(
  'checkout_sessions',
  't.workspace_id = s.ws OR t.intent_id = ANY(s.intents) OR t.id = ANY(s.sessions)',
);
