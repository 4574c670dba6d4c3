import { Injectable } from '@nestjs/common';

import { Tx } from '../database/tx';
import { HostedCheckout, HostedCheckoutChannel } from './hosted-checkout.entity';

/** The only SQL of the public-pay module. */
@Injectable()
export class HostedCheckoutRepository {
  constructor(private readonly tx: Tx) {}

  async insert(checkout: HostedCheckout): Promise<void> {
    await this.tx.manager.insert(HostedCheckout, checkout);
  }

  find(id: string): Promise<HostedCheckout | null> {
    return this.tx.manager.findOneBy(HostedCheckout, { id });
  }

  /** SELECT … FOR NO KEY UPDATE; the caller already holds the quote's lock. */
  lock(id: string, opts: { skipLocked?: boolean } = {}): Promise<HostedCheckout | null> {
    return this.tx.manager.findOne(HostedCheckout, {
      where: { id },
      lock: {
        mode: 'for_no_key_update',
        ...(opts.skipLocked ? { onLocked: 'skip_locked' as const } : {}),
      },
    });
  }

  /**
   * The quote's live checkout (created or processing) of a channel, locked; at most one exists
   * per quote and channel (partial unique index).
   */
  async lockLive(
    quoteId: string,
    channel: HostedCheckoutChannel = 'page',
  ): Promise<HostedCheckout | null> {
    const [row] = await this.tx.manager.query<{ id: string }[]>(
      `SELECT id FROM hosted_checkouts
        WHERE quote_id = $1 AND channel = $2 AND status IN ('created', 'processing')`,
      [quoteId, channel],
    );
    return row ? this.lock(row.id) : null;
  }

  /** Gateway rail: records the checkout's gateway order once (a second one never replaces it). */
  async setGatewayOrder(id: string, orderId: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE hosted_checkouts SET gateway_order_id = $2 WHERE id = $1 AND gateway_order_id IS NULL`,
      [id, orderId],
    );
  }

  /**
   * Channel `link`: records the gateway's payment link and its order once (a second one never
   * replaces them).
   */
  async setGatewayLink(
    id: string,
    link: { linkId: string; url: string; orderId: string },
  ): Promise<void> {
    await this.tx.manager.query(
      `UPDATE hosted_checkouts SET gateway_link_id = $2, link_url = $3, gateway_order_id = $4
        WHERE id = $1 AND gateway_link_id IS NULL AND gateway_order_id IS NULL`,
      [id, link.linkId, link.url, link.orderId],
    );
  }

  findByGatewayOrder(orderId: string): Promise<HostedCheckout | null> {
    return this.tx.manager.findOneBy(HostedCheckout, { gatewayOrderId: orderId });
  }

  /**
   * The quote's most recent checkout of a channel, whatever its state (for `page`: what the public
   * view shows; for `link`: the quote's payment link).
   */
  latest(quoteId: string, channel: HostedCheckoutChannel = 'page'): Promise<HostedCheckout | null> {
    return this.tx.manager.findOne(HostedCheckout, {
      where: { quoteId, channel },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /**
   * Gateway rail, the ended-checkout pass (docs/gateway.md "Going live on the gateway"): checkouts with a
   * gateway order that ended unpaid (failed, expired, or created past expires_at) and were never
   * looked at, claimed (captures_checked_at = now) under SKIP LOCKED, oldest first. Each is looked
   * at once; a look that fails is released with `releaseCaptureCheck` for the next pass.
   */
  async claimEndedForCaptureCheck(
    now: Date,
    limit: number,
  ): Promise<{ id: string; gateway_order_id: string }[]> {
    // The driver answers an UPDATE … RETURNING with [rows, count].
    const [rows] = await this.tx.manager.query<
      [{ id: string; gateway_order_id: string }[], number]
    >(
      `UPDATE hosted_checkouts SET captures_checked_at = $1
        WHERE id IN (SELECT id FROM hosted_checkouts
                      WHERE gateway_order_id IS NOT NULL AND captures_checked_at IS NULL
                        AND (status IN ('failed', 'expired') OR (status = 'created' AND expires_at <= $1))
                      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, gateway_order_id`,
      [now, limit],
    );
    return rows;
  }

  async releaseCaptureCheck(id: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE hosted_checkouts SET captures_checked_at = NULL WHERE id = $1`,
      [id],
    );
  }

  async update(
    id: string,
    changes: Partial<
      Pick<
        HostedCheckout,
        | 'status'
        | 'intentId'
        | 'attempts'
        | 'failureCode'
        | 'failureReason'
        | 'updatedAt'
        | 'completedAt'
        | 'gatewayOrderId'
      >
    >,
  ): Promise<void> {
    await this.tx.manager.update(HostedCheckout, { id }, changes);
  }
}
