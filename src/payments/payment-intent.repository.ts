import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { paiseFromSql } from '../common/money';
import { Cursor, newestFirst } from '../common/pagination';
import { batchColumns, batchInsert, batchUpdate } from '../database/batch';
import { entityFromJson } from '../database/entity-from-json';
import { col, param, sql, SqlFragment, SqlOperand } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { query, Sql } from '../database/sql';
import { QueuedStatement, Tx } from '../database/tx';
import { tokenParts } from '../delegate-payment/delegated-token.repository';
import { mandateParts } from '../mandates/mandate.repository';
import { indianDay } from './buyer-rules';
import { IntentSourceKind, IntentStatus, PaymentIntent } from './entities/payment-intent.entity';
import { paymentErrors } from './payments.errors';
import { statusCheckParts } from './rail-status-check.repository';

/** SQL on payment_intents for another owner's statement (see `agentParts`). */
export const intentParts = {
  /** The buyer's workspace of an intent, as a scalar subquery. */
  buyerWorkspaceOf: (id: SqlOperand): SqlFragment =>
    sql`(SELECT buyer_workspace_id FROM payment_intents WHERE id = ${id})`,
  /** The seller agent of an intent, as a scalar subquery. */
  sellerOf: (id: SqlOperand): SqlFragment =>
    sql`(SELECT seller_agent_id FROM payment_intents WHERE id = ${id})`,
  /** The payment waiting for approval that this token was spent on, as a scalar subquery. */
  waitingOnToken: (tokenId: SqlOperand): SqlFragment =>
    sql`(SELECT id FROM payment_intents WHERE token_id = ${tokenId} AND status = 'requires_approval' LIMIT 1)`,
};

/**
 * The owner of payment_intents (docs/architecture.md "Table owners"): every statement on the table
 * is here, and other modules call these methods (PaymentsStoreModule exports it). Joins the
 * ambient transaction (Tx). The insert of a new intent and the record of the rail's outcome can be
 * queued for the commit's one statement (`Tx.writeBeforeCommit`) by a transaction that does not
 * read the intent back afterwards (docs/testing.md "Tests", "SQL budgets").
 */
/** Personal data (src/personal-data): every payment a workspace made or received, oldest first. */
export function intentsOfWorkspace(
  m: EntityManager,
  workspaceId: string,
): Promise<PaymentIntent[]> {
  return m.find(PaymentIntent, {
    where: [{ buyerWorkspaceId: workspaceId }, { sellerWorkspaceId: workspaceId }],
    order: { createdAt: 'ASC', id: 'ASC' },
  });
}

@Injectable()
export class PaymentIntentRepository {
  constructor(
    private readonly tx: Tx,
    private readonly sql: Sql,
  ) {}

  find(id: string): Promise<PaymentIntent | null> {
    return this.tx.manager.findOneBy(PaymentIntent, { id });
  }

  /** The intent another row names (a session's, a quote's, a checkout's): 404 when it is not there. */
  async get(id: string): Promise<PaymentIntent> {
    const intent = await this.find(id);
    if (!intent) {
      throw paymentErrors.intentNotFound(id);
    }
    return intent;
  }

  /** Intents by id; unknown ids are left out. */
  findByIds(ids: string[]): Promise<PaymentIntent[]> {
    return ids.length === 0
      ? Promise.resolve([])
      : this.tx.manager.findBy(PaymentIntent, { id: In(ids) });
  }

  /** The intent a receipt belongs to, or null. */
  findByReceipt(receiptId: string): Promise<PaymentIntent | null> {
    return this.tx.manager.findOneBy(PaymentIntent, { receiptId });
  }

  /** The newest intents of a workspace's buyer agents. */
  recentForBuyerWorkspace(workspaceId: string, limit: number): Promise<PaymentIntent[]> {
    return this.tx.manager.find(PaymentIntent, {
      where: { buyerWorkspaceId: workspaceId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }

  /** One side's intents of an agent, newest first, limit + 1 rows (for toPage). */
  listForAgent(
    agentId: string,
    side: 'buyer' | 'seller',
    status: IntentStatus | undefined,
    limit: number,
    after: Cursor | null,
  ): Promise<PaymentIntent[]> {
    // Each side has its own (agent_id, created_at DESC) index.
    const column = side === 'seller' ? 'i.seller_agent_id' : 'i.buyer_agent_id';
    const qb = this.tx.manager
      .createQueryBuilder(PaymentIntent, 'i')
      .where(`${column} = :agentId`, { agentId });
    if (status) {
      qb.andWhere('i.status = :status', { status });
    }
    return newestFirst(qb, 'i', limit, after).getMany();
  }

  /** Writes these columns of an intent the caller holds locked. */
  async update(id: string, changes: QueryDeepPartialEntity<PaymentIntent>): Promise<void> {
    await this.tx.manager.update(PaymentIntent, { id }, changes);
  }

  /** Adds a paid-out refund to the intent; the table's CHECK keeps it ≤ amount. Returns the new total. */
  async addRefunded(intentId: string, amountPaise: number, now: Date): Promise<number> {
    const [row] = await this.sql.rows(
      query<{ amount_refunded_paise: string }>(
        sql`UPDATE payment_intents
               SET amount_refunded_paise = amount_refunded_paise + ${amountPaise}, updated_at = ${now}
             WHERE id = ${intentId} RETURNING amount_refunded_paise::text`,
      ),
    );
    return paiseFromSql(row.amount_refunded_paise);
  }

  /**
   * The reconciler's claim: processing intents untouched since `olderThan`, oldest first, taken
   * with SKIP LOCKED and touched (updated_at = now), so another instance or the next sweep leaves
   * them alone for another interval. AutoPay debits paced by StatusCheckPacing are left out until
   * their next status check is due, and for good once their checks ran out.
   */
  async claimProcessing(olderThan: Date, limit: number, now: Date, id?: string): Promise<string[]> {
    const at = param(now);
    const only = param(id ?? null);
    const rows = await this.sql.rows(
      query<{ id: string }>(sql`UPDATE payment_intents SET updated_at = ${at}
        WHERE id IN (SELECT id FROM payment_intents
                      WHERE status = 'processing' AND updated_at <= ${olderThan} AND (${only}::text IS NULL OR id = ${only})
                        AND ${statusCheckParts.notPaced(col('payment_intents.id'), at)}
                      ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id`),
    );
    return rows.map((r) => r.id);
  }

  /** Payments waiting for approval on this mandate or token (no locks). */
  waitingOn(
    on: { mandateId: string } | { tokenId: string } | { workspaceId: string },
  ): Promise<{ id: string; source_kind: IntentSourceKind; source_id: string }[]> {
    const on_ =
      'mandateId' in on
        ? sql`mandate_id = ${on.mandateId}`
        : 'tokenId' in on
          ? sql`token_id = ${on.tokenId}`
          : sql`(buyer_workspace_id = ${on.workspaceId} OR seller_workspace_id = ${on.workspaceId})`;
    return this.sql.rows(
      query<{ id: string; source_kind: IntentSourceKind; source_id: string }>(
        sql`SELECT id, source_kind, source_id FROM payment_intents
             WHERE ${on_} AND status = 'requires_approval' ORDER BY id`,
      ),
    );
  }

  /**
   * Payments still waiting for approval on a mandate that is no longer active (revoked, expired,
   * past valid_until) or on a revoked token, oldest first (no locks).
   */
  async waitingOnEnded(now: Date, limit: number): Promise<string[]> {
    const rows = await this.sql.rows(
      query<{ id: string }>(
        sql`SELECT i.id FROM payment_intents i
          WHERE i.status = 'requires_approval' AND i.mandate_id IS NOT NULL
            AND (${mandateParts.endedAt(col('i.mandate_id'), param(now), sql`'active'`)}
                 OR ${tokenParts.isRevoked(col('i.token_id'))})
          ORDER BY i.created_at LIMIT ${limit}`,
      ),
    );
    return rows.map((r) => r.id);
  }

  /** Settled and in-flight amounts drawn on each mandate (refunds not deducted). */
  async usedOnMandates(mandateIds: string[]): Promise<Map<string, number>> {
    if (mandateIds.length === 0) {
      return new Map();
    }
    const rows = await this.sql.rows(
      query<{ mandate_id: string; total: string }>(
        sql`SELECT mandate_id, COALESCE(SUM(amount_paise), 0)::text AS total FROM payment_intents
             WHERE mandate_id = ANY(${mandateIds}::text[]) AND status IN ('processing', 'settled')
             GROUP BY mandate_id`,
      ),
    );
    return new Map(rows.map((r) => [r.mandate_id, paiseFromSql(r.total)]));
  }

  async insert(intent: PaymentIntent): Promise<void> {
    await this.tx.manager.insert(PaymentIntent, intent);
  }

  /** Queues the new intent's INSERT for the commit (nothing in this transaction reads it back). */
  async insertAtCommit(intent: PaymentIntent): Promise<void> {
    await this.tx.writeBeforeCommit('payment_intents.insert', intent, insertIntents);
  }

  /**
   * SELECT … FOR NO KEY UPDATE (lock order: docs/architecture.md); with skipLocked, a row another
   * transaction holds is not waited for (null).
   */
  lock(id: string, opts: { skipLocked?: boolean } = {}): Promise<PaymentIntent | null> {
    return this.tx.manager.findOne(PaymentIntent, {
      where: { id },
      lock: {
        mode: 'for_no_key_update',
        ...(opts.skipLocked ? { onLocked: 'skip_locked' as const } : {}),
      },
    });
  }

  /**
   * One statement: the source row locked by `source` (a `SELECT * … FOR NO KEY UPDATE` whose
   * parameters come first), then the intent FOR NO KEY UPDATE: its scan starts only once the
   * source's lock is held (the one-time filter on the source's count), keeping the lock order.
   * Both rows are their latest committed versions, however long the locks waited.
   */
  async lockAfter(
    source: QueuedStatement,
    id: string,
  ): Promise<{ source: Record<string, unknown> | null; intent: PaymentIntent | null }> {
    const n = source.params.length + 1;
    const [row] = await this.sql.rows<{
      source: Record<string, unknown> | null;
      intent: Record<string, unknown> | null;
    }>({
      // The source's own text and parameters first ($1…), then the intent's id.
      text: `WITH src AS (${source.sql}),
            i AS (SELECT * FROM payment_intents WHERE id = $${n} AND (SELECT count(*) FROM src) >= 0
                  FOR NO KEY UPDATE)
       SELECT (SELECT row_to_json(src) FROM src) AS source, (SELECT row_to_json(i) FROM i) AS intent`,
      values: [...source.params, id],
    });
    return {
      source: row.source,
      intent: row.intent ? entityFromJson(this.tx.manager, PaymentIntent, row.intent) : null,
    };
  }

  /**
   * What a buyer agent's payments committed on one IST day (`day`, YYYY-MM-DD): the
   * buyer_daily_spend row the payment_intents trigger keeps (migration 1763700002200), 0 when there
   * is none. Exact for a caller holding the buyer agent's lock, since every payment that adds to
   * it is recorded under that lock; what ends meanwhile only lowers it. `buyerAgentId` is the id, or
   * a scalar subquery that gives it (PaymentsService.sendPayerLocks).
   */
  async committedOn(buyerAgentId: SqlOperand | string, day: string): Promise<number> {
    const [row] = await this.sql.rows(
      query<{ committed: string }>(
        sql`SELECT committed_paise::text AS committed FROM buyer_daily_spend
             WHERE buyer_agent_id = ${buyerAgentId} AND day = ${day}::date`,
      ),
    );
    return row ? paiseFromSql(row.committed) : 0;
  }

  /**
   * What a buyer agent committed on the Indian day of `now` (committedOn: settled, in flight and
   * waiting for approval, so waiting payments count towards the daily cap), less `except` (a
   * waiting payment being checked again) when that payment counts in it.
   */
  async spentOn(buyerAgentId: string, now: Date, except: PaymentIntent | null): Promise<number> {
    const day = indianDay(now);
    const committed = await this.committedOn(buyerAgentId, day);
    const counted =
      except !== null &&
      COMMITTED_STATUSES.includes(except.status) &&
      indianDay(except.createdAt) === day;
    return counted ? committed - except.amountPaise : committed;
  }

  /**
   * Queues the outcome of a locked intent (status, decline, rail reference, receipt, settled_at,
   * updated_at as they now stand on `intent`) for the commit's one statement.
   */
  async recordOutcomeAtCommit(intent: PaymentIntent): Promise<void> {
    await this.tx.writeBeforeCommit('payment_intents.outcome', intent, updateOutcomes);
  }
}

/** Every column of payment_intents, named once (src/database/batch.ts). */
const INTENT_COLUMNS = batchColumns<PaymentIntent>({
  id: ['text', (r) => r.id],
  buyer_workspace_id: ['text', (r) => r.buyerWorkspaceId],
  buyer_agent_id: ['text', (r) => r.buyerAgentId],
  seller_workspace_id: ['text', (r) => r.sellerWorkspaceId],
  seller_agent_id: ['text', (r) => r.sellerAgentId],
  amount_paise: ['bigint', (r) => r.amountPaise],
  amount_refunded_paise: ['bigint', (r) => r.amountRefundedPaise],
  currency: ['text', (r) => r.currency],
  source_kind: ['text', (r) => r.sourceKind],
  source_id: ['text', (r) => r.sourceId],
  token_id: ['text', (r) => r.tokenId],
  mandate_id: ['text', (r) => r.mandateId],
  status: ['text', (r) => r.status],
  decline_code: ['text', (r) => r.declineCode],
  decline_reason: ['text', (r) => r.declineReason],
  description: ['text', (r) => r.description],
  receipt_context: ['jsonb', (r) => r.receiptContext],
  rail: ['text', (r) => r.rail],
  rail_reference: ['text', (r) => r.railReference],
  receipt_id: ['text', (r) => r.receiptId],
  created_at: ['timestamptz', (r) => r.createdAt],
  updated_at: ['timestamptz', (r) => r.updatedAt],
  settled_at: ['timestamptz', (r) => r.settledAt],
});

/** The outcome columns recordOutcomeAtCommit writes, by id. */
const OUTCOME_COLUMNS = batchColumns<PaymentIntent>({
  id: INTENT_COLUMNS.id,
  status: INTENT_COLUMNS.status,
  decline_code: INTENT_COLUMNS.decline_code,
  decline_reason: INTENT_COLUMNS.decline_reason,
  rail_reference: INTENT_COLUMNS.rail_reference,
  receipt_id: INTENT_COLUMNS.receipt_id,
  settled_at: INTENT_COLUMNS.settled_at,
  updated_at: INTENT_COLUMNS.updated_at,
});

/** New intents as one INSERT. */
function insertIntents(rows: PaymentIntent[]): QueuedStatement {
  return batchInsert('payment_intents', INTENT_COLUMNS, rows);
}

/** The outcome columns of locked intents as one UPDATE; a row queued twice keeps its last state. */
function updateOutcomes(queued: PaymentIntent[]): QueuedStatement {
  return batchUpdate('payment_intents', 'id', OUTCOME_COLUMNS, queued);
}

/** The statuses whose amounts count towards the daily cap (the buyer_daily_spend trigger's). */
const COMMITTED_STATUSES: readonly IntentStatus[] = ['requires_approval', 'processing', 'settled'];

/** Erasure's reach into payment_intents: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const paymentIntentsPersonalRows = personalRows('payment_intents', 't.id = ANY(s.intents)');
