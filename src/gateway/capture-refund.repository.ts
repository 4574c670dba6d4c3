import { Injectable } from '@nestjs/common';

import { sql, SqlFragment } from '../database/fragment';
import { personalRows } from '../database/personal-rows';
import { Tx } from '../database/tx';

export type CaptureRefundStatus = 'due' | 'requested' | 'refunded';

/** A captured gateway payment the service could not settle, and its refund (migration 1764000000000). */
export interface CaptureRefundRow {
  id: string;
  payment_id: string;
  order_id: string;
  amount_paise: number;
  checkout_id: string | null;
  quote_id: string | null;
  intent_id: string | null;
  buyer_workspace_id: string | null;
  seller_workspace_id: string | null;
  seller_agent_id: string | null;
  reason_code: string;
  reason: string;
  status: CaptureRefundStatus;
  asks: number;
  gateway_refund_id: string | null;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
  requested_at: Date | null;
  refunded_at: Date | null;
}

export type NewCaptureRefund = Pick<
  CaptureRefundRow,
  | 'id'
  | 'payment_id'
  | 'order_id'
  | 'amount_paise'
  | 'checkout_id'
  | 'quote_id'
  | 'intent_id'
  | 'buyer_workspace_id'
  | 'seller_workspace_id'
  | 'seller_agent_id'
  | 'reason_code'
  | 'reason'
  | 'created_at'
>;

const COLUMNS = `id, payment_id, order_id, amount_paise::text AS amount_paise, checkout_id, quote_id,
  intent_id, buyer_workspace_id, seller_workspace_id, seller_agent_id, reason_code, reason, status,
  asks, gateway_refund_id, last_error, next_attempt_at, created_at, requested_at, refunded_at`;

/** SQL on gateway_capture_refunds for another owner's statement (docs/architecture.md "Table owners"). */
export const captureRefundParts = {
  /** Captures not yet refunded: how many, and since when (for the scrape-time gauges). */
  awaitingCount: (): SqlFragment =>
    sql`(SELECT count(*)::int FROM gateway_capture_refunds WHERE status <> 'refunded')`,
  oldestAwaiting: (): SqlFragment =>
    sql`(SELECT min(created_at) FROM gateway_capture_refunds WHERE status <> 'refunded')`,
};

/**
 * The table of captures being refunded. Every write is one statement that checks the state it
 * moves from, so a webhook, the page and the sweep racing on one row move it once and never back.
 */
@Injectable()
export class CaptureRefundRepository {
  constructor(private readonly tx: Tx) {}

  /**
   * Runs a statement returning rows of COLUMNS (amount_paise as text: a bigint read exactly). The
   * driver answers an UPDATE … RETURNING with [rows, count], a SELECT with the rows.
   */
  private async rows(sql: string, params: unknown[]): Promise<CaptureRefundRow[]> {
    type Raw = CaptureRefundRow & { amount_paise: string };
    const result = await this.tx.manager.query<Raw[] | [Raw[], number]>(sql, params);
    const rows = (/^\s*UPDATE/i.test(sql) ? result[0] : result) as Raw[];
    return rows.map((r) => ({ ...r, amount_paise: Number(r.amount_paise) }));
  }

  /** Holds a capture for refund; false when this payment is held already (nothing written). */
  async insert(row: NewCaptureRefund): Promise<boolean> {
    const rows = await this.tx.manager.query<{ id: string }[]>(
      `INSERT INTO gateway_capture_refunds (id, payment_id, order_id, amount_paise, checkout_id,
         quote_id, intent_id, buyer_workspace_id, seller_workspace_id, seller_agent_id, reason_code,
         reason, status, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'due', $13, $13)
       ON CONFLICT (payment_id) DO NOTHING RETURNING id`,
      [
        row.id,
        row.payment_id,
        row.order_id,
        row.amount_paise,
        row.checkout_id,
        row.quote_id,
        row.intent_id,
        row.buyer_workspace_id,
        row.seller_workspace_id,
        row.seller_agent_id,
        row.reason_code,
        row.reason,
        row.created_at,
      ],
    );
    return rows.length === 1;
  }

  async findByPayment(paymentId: string): Promise<CaptureRefundRow | null> {
    const [row] = await this.rows(
      `SELECT ${COLUMNS} FROM gateway_capture_refunds WHERE payment_id = $1`,
      [paymentId],
    );
    return row ?? null;
  }

  async find(id: string): Promise<CaptureRefundRow | null> {
    const [row] = await this.rows(`SELECT ${COLUMNS} FROM gateway_capture_refunds WHERE id = $1`, [
      id,
    ]);
    return row ?? null;
  }

  /** The refunds of captures on a hosted checkout's order, oldest first. */
  async ofCheckout(checkoutId: string): Promise<CaptureRefundRow[]> {
    return this.rows(
      `SELECT ${COLUMNS} FROM gateway_capture_refunds WHERE checkout_id = $1 ORDER BY created_at`,
      [checkoutId],
    );
  }

  /** The refunds of captures tied to an intent, oldest first. */
  async ofIntent(intentId: string): Promise<CaptureRefundRow[]> {
    return this.rows(
      `SELECT ${COLUMNS} FROM gateway_capture_refunds WHERE intent_id = $1 ORDER BY created_at`,
      [intentId],
    );
  }

  /**
   * Rows whose next step is due at `now` (a refund to ask, or a requested one to look up),
   * claimed: their next attempt is pushed to `until`, under SKIP LOCKED, so another instance or
   * the next run leaves them alone meanwhile. Oldest first, at most `limit`.
   */
  async claimDue(now: Date, until: Date, limit: number): Promise<CaptureRefundRow[]> {
    return this.rows(
      `UPDATE gateway_capture_refunds SET next_attempt_at = $2
        WHERE id IN (SELECT id FROM gateway_capture_refunds
                      WHERE status <> 'refunded' AND next_attempt_at <= $1
                      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [now, until, limit],
    );
  }

  /**
   * due → requested: the gateway accepted refund `refundId` (pending). Never for the refund that
   * already failed (it stays the row's gateway_refund_id until a new one is asked): a late
   * `refund.created` of a failed refund must not move the row back.
   */
  async markRequested(id: string, refundId: string, now: Date, nextAt: Date): Promise<boolean> {
    const [, count] = await this.tx.manager.query<[unknown[], number]>(
      `UPDATE gateway_capture_refunds
          SET status = 'requested', gateway_refund_id = $2, requested_at = $3, next_attempt_at = $4,
              last_error = NULL
        WHERE id = $1 AND status = 'due' AND gateway_refund_id IS DISTINCT FROM $2`,
      [id, refundId, now, nextAt],
    );
    return count > 0;
  }

  /** due | requested → refunded (final). True when this call moved it. */
  async markRefunded(id: string, refundId: string, now: Date): Promise<CaptureRefundRow | null> {
    const [row] = await this.rows(
      `UPDATE gateway_capture_refunds
          SET status = 'refunded', gateway_refund_id = $2, refunded_at = $3,
              requested_at = coalesce(requested_at, $3), last_error = NULL
        WHERE id = $1 AND status <> 'refunded' RETURNING ${COLUMNS}`,
      [id, refundId, now],
    );
    return row ?? null;
  }

  /**
   * requested → due when the gateway failed refund `refundId` (that one, not an older one): the
   * next ask is a new refund (asks + 1, so a new Idempotency-Key).
   */
  async markRefundFailed(id: string, refundId: string, error: string, nextAt: Date) {
    const [, count] = await this.tx.manager.query<[unknown[], number]>(
      `UPDATE gateway_capture_refunds
          SET status = 'due', asks = asks + 1, last_error = $3, next_attempt_at = $4
        WHERE id = $1 AND status = 'requested' AND gateway_refund_id = $2`,
      [id, refundId, error.slice(0, 500), nextAt],
    );
    return count > 0;
  }

  /** A try that got no definite answer: the error, for operators; the claim set the next time. */
  async noteError(id: string, error: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE gateway_capture_refunds SET last_error = $2 WHERE id = $1 AND status <> 'refunded'`,
      [id, error.slice(0, 500)],
    );
  }

  /** Captures not yet refunded, oldest first (the operators' list). */
  async awaiting(limit: number): Promise<CaptureRefundRow[]> {
    return this.rows(
      `SELECT ${COLUMNS} FROM gateway_capture_refunds WHERE status <> 'refunded'
        ORDER BY created_at LIMIT $1`,
      [limit],
    );
  }

  /** Refunded captures, newest first. */
  async refunded(limit: number): Promise<CaptureRefundRow[]> {
    return this.rows(
      `SELECT ${COLUMNS} FROM gateway_capture_refunds WHERE status = 'refunded'
        ORDER BY refunded_at DESC LIMIT $1`,
      [limit],
    );
  }
}

/** Erasure's reach into gateway_capture_refunds: rows that can be a person's (docs/personal-data.md "The personal-data map"). */
export const gatewayCaptureRefundsPersonalRows = personalRows(
  'gateway_capture_refunds',
  't.buyer_workspace_id = s.ws OR t.seller_workspace_id = s.ws',
);
