import { Inject, Injectable, Logger } from '@nestjs/common';

import { Tx } from '../database/tx';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { GatewayOrderKind, GatewayRepository } from '../rails/gateway/gateway.repository';
import { GatewayClient, GatewayError } from '../rails/gateway/gateway-client';
import type { GatewayOrder } from '../rails/gateway/gateway-client.types';
import { GATEWAY_CLIENT } from '../rails/gateway/gateway-rail';

/**
 * What the matcher found of an order: known to us (recorded before, or just now from the
 * references we sent with it), foreign (the gateway says so: no such order, or one that names
 * none of ours: `reason` says which), or not found out (the gateway did not answer: asked again
 * by the sweep).
 */
export type OrderMatch =
  { kind: 'ours' } | { kind: 'foreign'; reason: string } | { kind: 'not_known_yet' };

/** Why an unmatched event is not ours: fixed words, never a value from the gateway. */
export const FOREIGN_REASONS = {
  noSuchOrder: 'the gateway has no such order',
  notOurs: 'the gateway’s order names no payment or mandate of ours (receipt, notes)',
} as const;

/** A receipt that can be one of our ids (printable ASCII, as the gateway's 40 characters). */
const RECEIPT = /^[\x21-\x7e]{1,40}$/;

/**
 * No gateway event about our own payments is orphaned (docs/gateway.md "Events for no order of
 * ours"). Every order we open at the gateway carries our reference: `receipt` = the intent id
 * (mandate debits, AutoPay and Reserve Pay debits alike; Reserve Pay's debit order is opened by
 * the gateway inside the debit call, with the receipt we send) or the mandate id (a token
 * registration, `notes.mandate_id`). The rail records each order once it has the gateway's
 * answer (gateway-rail.ts); an event that arrives before that record, or after a crash between
 * the gateway's answer and the record, names an order we do not know. The matcher then asks the
 * gateway for that order (outside any transaction) and, when its receipt or notes name an intent
 * or mandate of ours, records it (gateway_orders, ON CONFLICT DO NOTHING: the rail's own record
 * is the same row). Only an order the gateway says is not ours leaves its events `unmatched` for
 * a person, with the reason; one the gateway could not be asked about is asked again by the
 * unmatched-events sweep (GatewayWebhooksService), which then applies its events.
 */
@Injectable()
export class GatewayOrderMatcher {
  private readonly logger = new Logger(GatewayOrderMatcher.name);

  constructor(
    private readonly tx: Tx,
    private readonly store: GatewayRepository,
    private readonly intents: PaymentIntentRepository,
    @Inject(GATEWAY_CLIENT) private readonly client: GatewayClient | null,
  ) {}

  /** The order known to us, recorded now when its references name ours; never throws. */
  async match(orderId: string): Promise<OrderMatch> {
    try {
      if (await this.store.findOrder(orderId)) {
        return { kind: 'ours' };
      }
      if (!this.client || !orderId) {
        return { kind: 'foreign', reason: FOREIGN_REASONS.noSuchOrder };
      }
      let order: GatewayOrder;
      try {
        order = await this.client.getOrder(orderId);
      } catch (err) {
        if (err instanceof GatewayError && !err.retryable) {
          return { kind: 'foreign', reason: FOREIGN_REASONS.noSuchOrder };
        }
        throw err;
      }
      const subject = order?.id === orderId ? await this.subjectOf(order) : null;
      if (!subject) {
        return { kind: 'foreign', reason: FOREIGN_REASONS.notOurs };
      }
      await this.tx.run(() =>
        this.store.recordOrder(order.id, subject.kind, subject.id, order.amount),
      );
      this.logger.log(
        { order_id: order.id, kind: subject.kind, subject_id: subject.id },
        'gateway order matched by its reference',
      );
      return { kind: 'ours' };
    } catch (err) {
      this.logger.warn(
        { order_id: orderId, err: (err as Error).message },
        'gateway order not looked up; the unmatched-events sweep asks again',
      );
      return { kind: 'not_known_yet' };
    }
  }

  /**
   * The sweep's half: orders of unmatched events not looked up yet (or whose look-up got no
   * answer) are asked about again; found ours, their events are applied by the caller's
   * retryUnmatched; found foreign, the events keep `unmatched` with the reason. Returns how
   * many orders were found ours.
   */
  async lookUpUnmatched(limit = 20): Promise<number> {
    const orderIds = await this.store.unmatchedOrdersToLookUp(limit);
    let ours = 0;
    for (const orderId of orderIds) {
      const found = await this.match(orderId);
      if (found.kind === 'ours') {
        ours++;
      } else if (found.kind === 'foreign') {
        await this.tx.run(() => this.store.markOrderForeign(orderId, found.reason));
      }
    }
    return ours;
  }

  /**
   * The payment or mandate an order of the gateway was opened for, by the references we send:
   * an intent's order has receipt (and notes.intent_id, when there are notes) = the intent id;
   * a registration order has receipt = notes.mandate_id = the mandate id and amount 0. Hosted
   * checkouts and payment links are recorded in the transaction that hands their order to the
   * person (src/public-pay), so nobody can pay an order of theirs we did not record.
   */
  private async subjectOf(
    order: GatewayOrder,
  ): Promise<{ kind: GatewayOrderKind; id: string } | null> {
    const notes = order.notes ?? {};
    const receipt = typeof order.receipt === 'string' ? order.receipt : '';
    if (!RECEIPT.test(receipt)) {
      return null;
    }
    if (notes.mandate_id === receipt && order.amount === 0) {
      return (await this.store.mandateExists(receipt))
        ? { kind: 'registration', id: receipt }
        : null;
    }
    if (notes.intent_id !== undefined && notes.intent_id !== receipt) {
      return null;
    }
    if (notes.checkout_id !== undefined || notes.mandate_id !== undefined) {
      return null;
    }
    const intent = await this.intents.find(receipt);
    return intent ? { kind: 'intent', id: intent.id } : null;
  }
}
