import { Injectable } from '@nestjs/common';

import { newId } from '../common/ids';
import { paiseFromSql } from '../common/money';
import { Cursor, newestFirst } from '../common/pagination';
import { Tx } from '../database/tx';
import { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { RailTransfer } from '../payments/entities/rail-transfer.entity';
import type { RailResult } from '../payments/payment-rail';
import { Refund } from './refund.entity';
import { REFUND_COMMITTED } from './refund.state';

/**
 * The only SQL of the refunds module: refund rows, plus the few intent reads and writes a refund
 * needs (row lock, amount_refunded increment, the credit on rail_transfers). Lock order is
 * intent → refund → approval everywhere.
 */
@Injectable()
export class RefundRepository {
  constructor(private readonly tx: Tx) {}

  findIntent(id: string): Promise<PaymentIntent | null> {
    return this.tx.manager.findOneBy(PaymentIntent, { id });
  }

  /** SELECT … FOR UPDATE on the intent: serialises every refund of one payment. */
  lockIntent(id: string): Promise<PaymentIntent | null> {
    return this.tx.manager.findOne(PaymentIntent, {
      where: { id },
      lock: { mode: 'for_no_key_update' },
    });
  }

  /** Adds a paid-out refund to the intent; the table's CHECK keeps it ≤ amount. Returns the new total. */
  async addRefunded(intentId: string, amountPaise: number, now: Date): Promise<number> {
    const [rows] = await this.tx.manager.query<[{ amount_refunded_paise: string }[], number]>(
      `UPDATE payment_intents SET amount_refunded_paise = amount_refunded_paise + $2, updated_at = $3
        WHERE id = $1 RETURNING amount_refunded_paise::text`,
      [intentId, amountPaise, now],
    );
    return paiseFromSql(rows[0].amount_refunded_paise);
  }

  /** Paise of this intent already refunded or waiting for approval. */
  async committedPaise(intentId: string): Promise<number> {
    const [row] = await this.tx.manager.query<{ total: string }[]>(
      `SELECT COALESCE(SUM(amount_paise), 0)::text AS total FROM refunds WHERE intent_id = $1 AND status = ANY($2)`,
      [intentId, REFUND_COMMITTED],
    );
    return paiseFromSql(row.total);
  }

  async insert(refund: Refund): Promise<void> {
    await this.tx.manager.insert(Refund, refund);
  }

  find(id: string): Promise<Refund | null> {
    return this.tx.manager.findOneBy(Refund, { id });
  }

  lock(id: string): Promise<Refund | null> {
    return this.tx.manager.findOne(Refund, { where: { id }, lock: { mode: 'for_no_key_update' } });
  }

  async update(id: string, changes: Partial<Refund>): Promise<void> {
    await this.tx.manager.update(Refund, { id }, changes);
  }

  /** Refunds of one intent, newest first, limit + 1 rows (for toPage). */
  listForIntent(intentId: string, limit: number, after: Cursor | null): Promise<Refund[]> {
    const qb = this.tx.manager
      .createQueryBuilder(Refund, 'r')
      .where('r.intent_id = :intentId', { intentId });
    return newestFirst(qb, 'r', limit, after).getMany();
  }

  /** Records the refund's credit on the rail; unique per refund (rail_transfers_refund_id_key). */
  async insertCredit(
    refund: Refund,
    result: Exclude<RailResult, { status: 'pending' }>,
    now: Date,
  ): Promise<void> {
    await this.tx.manager.insert(RailTransfer, {
      id: newId('trf'),
      intentId: refund.intentId,
      direction: 'credit',
      refundId: refund.id,
      amountPaise: refund.amountPaise,
      status: result.status,
      failureCode: result.status === 'failed' ? result.failureCode : null,
      reference: result.reference,
      gatewayOrderId: null,
      gatewayPaymentId: result.ids?.paymentId ?? null,
      gatewayRefundId: result.ids?.refundId ?? null,
      createdAt: now,
    });
  }

  /**
   * The reconciler's claim: processing refunds untouched since `olderThan`, taken with SKIP
   * LOCKED and touched (updated_at = now), so no other instance asks about them for an interval.
   */
  async claimProcessing(olderThan: Date, limit: number, now: Date, id?: string): Promise<string[]> {
    const [rows] = await this.tx.manager.query<[{ id: string }[], number]>(
      `UPDATE refunds SET updated_at = $4
        WHERE id IN (SELECT id FROM refunds
                      WHERE status = 'processing' AND updated_at <= $1 AND ($3::text IS NULL OR id = $3)
                      ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [olderThan, limit, id ?? null, now],
    );
    return rows.map((r) => r.id);
  }

  /** The rail's refund id, known before its outcome (the gateway's refund is still pending). */
  async setProcessingReference(id: string, reference: string): Promise<void> {
    await this.tx.manager.update(
      Refund,
      { id, status: 'processing' },
      { railReference: reference },
    );
  }

  findByRailReference(reference: string): Promise<Refund | null> {
    return this.tx.manager.findOneBy(Refund, { railReference: reference });
  }

  async agentName(id: string): Promise<string> {
    const [row] = await this.tx.manager.query<{ name: string }[]>(
      'SELECT name FROM agents WHERE id = $1',
      [id],
    );
    return row?.name ?? id;
  }
}
