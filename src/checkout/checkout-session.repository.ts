import { Injectable } from '@nestjs/common';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { Tx } from '../database/tx';
import { CheckoutSession } from './checkout-session.entity';

/** The only file that queries checkout_sessions; joins the ambient transaction (Tx). */
@Injectable()
export class CheckoutSessionRepository {
  constructor(private readonly tx: Tx) {}

  async insert(session: CheckoutSession): Promise<void> {
    // jsonb columns are typed Record<string, unknown>, which TypeORM's deep-partial type cannot express.
    await this.tx.manager.insert(
      CheckoutSession,
      session as QueryDeepPartialEntity<CheckoutSession>,
    );
  }

  findById(id: string): Promise<CheckoutSession | null> {
    return this.tx.manager.findOneBy(CheckoutSession, { id });
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

  findByOrderId(orderId: string): Promise<CheckoutSession | null> {
    return this.tx.manager.findOneBy(CheckoutSession, { orderId });
  }

  /** Writes every mutable column of a locked session. */
  async save(s: CheckoutSession): Promise<void> {
    await this.tx.manager.update(CheckoutSession, { id: s.id }, {
      status: s.status,
      lineItems: s.lineItems,
      buyer: s.buyer,
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
   * Persists `expired` for an open session past its expiry. A single conditional UPDATE: it waits
   * for any writer's row lock and re-checks the status, so it can never overwrite a completion.
   */
  async expireIfDue(id: string, now: Date): Promise<boolean> {
    const result = await this.tx.manager.query<[unknown[], number]>(
      `UPDATE checkout_sessions SET status = 'expired', updated_at = expires_at
        WHERE id = $1 AND status IN ('ready_for_payment', 'not_ready_for_payment') AND expires_at <= $2`,
      [id, now],
    );
    return result[1] > 0;
  }
}
