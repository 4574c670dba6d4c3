import { Injectable } from '@nestjs/common';

import { paiseFromSql } from '../common/money';
import { entityFromJson } from '../database/entity-from-json';
import { QueuedStatement, Tx } from '../database/tx';
import { PaymentIntent } from './entities/payment-intent.entity';

/**
 * The pipeline's writes to payment_intents on the money path (docs/architecture.md "Payment
 * pipeline"). The insert of a new intent and the record of the rail's outcome can be queued for
 * the commit's one statement (`Tx.writeBeforeCommit`) by a transaction that does not read the
 * intent back afterwards (README "Tests", "SQL budgets").
 */
@Injectable()
export class PaymentIntentRepository {
  constructor(private readonly tx: Tx) {}

  async insert(intent: PaymentIntent): Promise<void> {
    await this.tx.manager.insert(PaymentIntent, intent);
  }

  /** Queues the new intent's INSERT for the commit (nothing in this transaction reads it back). */
  async insertAtCommit(intent: PaymentIntent): Promise<void> {
    await this.tx.writeBeforeCommit('payment_intents.insert', intent, insertIntents);
  }

  /** SELECT … FOR NO KEY UPDATE (lock order: docs/architecture.md). */
  lock(id: string): Promise<PaymentIntent | null> {
    return this.tx.manager.findOne(PaymentIntent, {
      where: { id },
      lock: { mode: 'for_no_key_update' },
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
    const [row] = await this.tx.manager.query<
      { source: Record<string, unknown> | null; intent: Record<string, unknown> | null }[]
    >(
      `WITH src AS (${source.sql}),
            i AS (SELECT * FROM payment_intents WHERE id = $${n} AND (SELECT count(*) FROM src) >= 0
                  FOR NO KEY UPDATE)
       SELECT (SELECT row_to_json(src) FROM src) AS source, (SELECT row_to_json(i) FROM i) AS intent`,
      [...source.params, id],
    );
    return {
      source: row.source,
      intent: row.intent ? entityFromJson(this.tx.manager, PaymentIntent, row.intent) : null,
    };
  }

  /**
   * What a buyer agent's payments committed on one IST day (`day`, YYYY-MM-DD): the
   * buyer_daily_spend row the payment_intents trigger keeps (migration 1763700002200), 0 when there
   * is none. Exact for a caller holding the buyer agent's lock, since every payment that adds to
   * it is recorded under that lock; what ends meanwhile only lowers it.
   */
  async committedOn(buyerAgentId: string, day: string): Promise<number> {
    const [row] = await this.tx.manager.query<{ committed: string }[]>(
      `SELECT committed_paise::text AS committed FROM buyer_daily_spend
        WHERE buyer_agent_id = $1 AND day = $2::date`,
      [buyerAgentId, day],
    );
    return row ? paiseFromSql(row.committed) : 0;
  }

  /**
   * Queues the outcome of a locked intent (status, decline, rail reference, receipt, settled_at,
   * updated_at as they now stand on `intent`) for the commit's one statement.
   */
  async recordOutcomeAtCommit(intent: PaymentIntent): Promise<void> {
    await this.tx.writeBeforeCommit('payment_intents.outcome', intent, updateOutcomes);
  }
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** New intents as one INSERT (parallel arrays). */
function insertIntents(rows: PaymentIntent[]): QueuedStatement {
  return {
    sql: `INSERT INTO payment_intents (id, buyer_workspace_id, buyer_agent_id, seller_workspace_id, seller_agent_id,
       amount_paise, amount_refunded_paise, currency, source_kind, source_id, token_id, mandate_id, status,
       decline_code, decline_reason, description, receipt_context, rail, rail_reference, receipt_id, created_at,
       updated_at, settled_at)
     SELECT id, bw, ba, sw, sa, amt, ref, cur, sk, si, tk, md, st, dc, dr, ds, rc::jsonb, rl, rr, rcp,
            ca::timestamptz, ua::timestamptz, sa2::timestamptz
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
                   $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
                   $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[],
                   $22::text[], $23::text[])
            AS r(id, bw, ba, sw, sa, amt, ref, cur, sk, si, tk, md, st, dc, dr, ds, rc, rl, rr, rcp, ca, ua, sa2)`,
    params: [
      rows.map((r) => r.id),
      rows.map((r) => r.buyerWorkspaceId),
      rows.map((r) => r.buyerAgentId),
      rows.map((r) => r.sellerWorkspaceId),
      rows.map((r) => r.sellerAgentId),
      rows.map((r) => r.amountPaise),
      rows.map((r) => r.amountRefundedPaise),
      rows.map((r) => r.currency),
      rows.map((r) => r.sourceKind),
      rows.map((r) => r.sourceId),
      rows.map((r) => r.tokenId),
      rows.map((r) => r.mandateId),
      rows.map((r) => r.status),
      rows.map((r) => r.declineCode),
      rows.map((r) => r.declineReason),
      rows.map((r) => r.description),
      rows.map((r) => JSON.stringify(r.receiptContext)),
      rows.map((r) => r.rail),
      rows.map((r) => r.railReference),
      rows.map((r) => r.receiptId),
      rows.map((r) => iso(r.createdAt)),
      rows.map((r) => iso(r.updatedAt)),
      rows.map((r) => iso(r.settledAt)),
    ],
  };
}

/** The outcome columns of locked intents as one UPDATE; a row queued twice keeps its last state. */
function updateOutcomes(queued: PaymentIntent[]): QueuedStatement {
  const rows = [...new Map(queued.map((r) => [r.id, r])).values()];
  return {
    sql: `UPDATE payment_intents AS p
             SET status = u.st, decline_code = u.dc, decline_reason = u.dr, rail_reference = u.rr,
                 receipt_id = u.rcp, settled_at = u.sa::timestamptz, updated_at = u.ua::timestamptz
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                        $8::text[]) AS u(id, st, dc, dr, rr, rcp, sa, ua)
           WHERE p.id = u.id`,
    params: [
      rows.map((r) => r.id),
      rows.map((r) => r.status),
      rows.map((r) => r.declineCode),
      rows.map((r) => r.declineReason),
      rows.map((r) => r.railReference),
      rows.map((r) => r.receiptId),
      rows.map((r) => iso(r.settledAt)),
      rows.map((r) => iso(r.updatedAt)),
    ],
  };
}
