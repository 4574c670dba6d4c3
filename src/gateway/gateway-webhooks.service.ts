import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { BusinessMetrics } from '../metrics/business-metrics';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { PaymentAttempt } from '../payments/payment-attempt';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { PaymentsService } from '../payments/payments.service';
import {
  GatewayEventOutcome,
  GatewayOrderRow,
  GatewayRepository,
} from '../rails/gateway/gateway.repository';
import type {
  GatewayPayment,
  GatewayRefund,
  GatewayWebhookEvent,
} from '../rails/gateway/gateway-client.types';
import { failureCodeOf, resultOfPayments, resultOfRefund } from '../rails/gateway/gateway-rail';
import { verifyWebhookSignature } from '../rails/gateway/gateway-signatures';
import { RefundsService } from '../refunds/refunds.service';
import { CaptureRefunds } from './capture-refunds';
import { gatewayErrors } from './gateway.errors';
import { gatewayEventLabel, ParsedGatewayEvent, parseGatewayEvent } from './gateway-events.schema';
import { GatewayOrderMatcher, OrderMatch } from './gateway-order-matcher';

/**
 * What the hosted payment page does with a payment the person made in the gateway's widget
 * (src/public-pay registers it): settle the checkout's quote through the pipeline, in the
 * caller's transaction. Shared by the browser's completion and the gateway's webhook, so a
 * payment whose page was closed still settles.
 */
export interface HostedGatewayPayments {
  settleCaptured(checkoutId: string, payment: GatewayPayment): Promise<GatewayEventOutcome>;
}

export interface WebhookAnswer {
  received: true;
  event_id: string;
  outcome: GatewayEventOutcome | 'unprocessable' | 'duplicate';
}

/**
 * X-Gateway-Event-Id: any id the gateway may send, 1–128 printable ASCII characters (space to `~`:
 * hyphens, dots, colons, inner spaces…). HTTP trims a header value's ends, so an id neither starts
 * nor ends with a space; no controls, nothing beyond ASCII. gateway_events.id is text.
 */
const EVENT_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/**
 * Inbound gateway webhooks (spec §5 rule 7; docs/gateway.md "Going live on the gateway"):
 *
 * - the signature (X-Gateway-Signature, HMAC-SHA256 of the raw body with GATEWAY_WEBHOOK_SECRET)
 *   is checked in constant time before anything else; a bad or missing one is refused and nothing
 *   is recorded;
 * - the event id (X-Gateway-Event-Id) is recorded in gateway_events in the same transaction as the
 *   event's effect, and the insert claims it: a repeat (a retry, a duplicate, fifty concurrent
 *   copies) waits for the first copy's transaction and is then ignored, so an event is applied once;
 * - effects go through the same idempotent steps as the request and the reconciler
 *   (PaymentsService.applyDebit, RefundsService.applyCredit, the hosted page's settleCaptured), so
 *   a state never moves backwards: payment.failed after payment.captured changes nothing;
 * - the body is parsed only then, against a schema (gateway-events.schema.ts); a signed event
 *   that does not parse is stored `unprocessable` with a short reason, answered 200 (a retry would
 *   not parse either), counted and listed for operators (/app/ops/gateway-events), never applied;
 * - correctly signed events are never rate limited (GatewayWebhookGuard);
 * - an event for an order we have not recorded is first looked up at the gateway
 *   (GatewayOrderMatcher): an order whose receipt or notes name a payment or mandate of ours is
 *   recorded and the event applied, so an event that overtakes our own record of the order, or
 *   follows a crash before it, is matched; one the gateway says is not ours is stored
 *   `unmatched` with the reason and answered 200 (no retry loop), for a person to reconcile; one
 *   the gateway could not be asked about is asked again by a sweep, which then applies it.
 */
@Injectable()
export class GatewayWebhooksService implements OnModuleInit {
  private readonly logger = new Logger(GatewayWebhooksService.name);
  private hosted: HostedGatewayPayments | null = null;

  constructor(
    private readonly tx: Tx,
    private readonly store: GatewayRepository,
    private readonly payments: PaymentsService,
    private readonly intents: PaymentIntentRepository,
    private readonly refunds: RefundsService,
    private readonly sweeper: Sweeper,
    private readonly captures: CaptureRefunds,
    private readonly metrics: BusinessMetrics,
    private readonly matcher: GatewayOrderMatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.gateway) {
      this.sweeper.register('gateway.unmatched-events', () => this.reconcileUnmatched(), {
        everyMs: 30_000,
      });
    }
  }

  registerHosted(handler: HostedGatewayPayments): void {
    this.hosted = handler;
  }

  /**
   * One delivery: the signature over the raw bytes first (nothing is parsed before it), then the
   * event id, then the body against the schema (gateway-events.schema.ts). A signed body that does
   * not parse is stored `unprocessable` and answered 200, never applied.
   */
  async receive(
    raw: Buffer | undefined,
    signature: string | undefined,
    eventId: string | undefined,
  ): Promise<WebhookAnswer> {
    const gateway = this.config.gateway;
    if (!gateway) {
      throw gatewayErrors.notConfigured();
    }
    if (!raw || !verifyWebhookSignature(raw, signature, gateway.webhookSecret.reveal())) {
      throw gatewayErrors.invalidWebhookSignature();
    }
    if (!eventId || !EVENT_ID.test(eventId)) {
      throw gatewayErrors.missingEventId();
    }
    const parsed = parseGatewayEvent(raw);
    if (!parsed.ok) {
      return this.receiveUnprocessable(eventId, parsed);
    }
    const { event, ids } = parsed;
    // An order we have not recorded yet is looked up at the gateway first, outside the
    // transaction (gateway-order-matcher.ts): ours by the reference we sent, it is recorded now.
    const order: OrderMatch | null =
      ids.orderId && PAYMENT_EVENTS.has(event.event) ? await this.matcher.match(ids.orderId) : null;
    return this.tx.run(async () => {
      const claimed = await this.store.claimEvent({
        id: eventId,
        type: event.event,
        payload: event,
        ...ids,
      });
      if (!claimed) {
        return { received: true as const, event_id: eventId, outcome: 'duplicate' as const };
      }
      const { outcome, subject } = await this.apply(event);
      const reason = outcome === 'unmatched' && order?.kind === 'foreign' ? order.reason : null;
      await this.store.settleEvent(eventId, outcome, subject, reason);
      this.logger.log({ event_id: eventId, event: event.event, outcome }, 'gateway event');
      return { received: true as const, event_id: eventId, outcome };
    });
  }

  /**
   * A correctly signed event we cannot read: recorded once with why (a repeat is `duplicate`),
   * counted (svc_gateway_events_unprocessable_total) and listed at /app/ops/gateway-events.
   * Answered 200 so the gateway stops retrying: a retry would carry the same bytes.
   */
  private receiveUnprocessable(
    eventId: string,
    parsed: Extract<ParsedGatewayEvent, { ok: false }>,
  ): Promise<WebhookAnswer> {
    const type = parsed.type ?? '';
    return this.tx.run(async () => {
      const claimed = await this.store.claimUnprocessableEvent({
        id: eventId,
        type,
        payload: parsed.stored,
        reason: parsed.reason,
      });
      if (!claimed) {
        return { received: true as const, event_id: eventId, outcome: 'duplicate' as const };
      }
      this.metrics.gatewayEventUnprocessable(gatewayEventLabel(parsed.type));
      this.logger.warn(
        { event_id: eventId, event: type, reason: parsed.reason },
        'gateway event unprocessable',
      );
      return { received: true as const, event_id: eventId, outcome: 'unprocessable' as const };
    });
  }

  /** The event's effect, in the caller's transaction. */
  private async apply(
    event: GatewayWebhookEvent,
  ): Promise<{ outcome: GatewayEventOutcome; subject: string | null }> {
    switch (event.event) {
      case 'payment.captured':
      case 'order.paid':
      case 'payment.failed':
      case 'payment.authorized': {
        const payment = event.payload.payment?.entity;
        return payment ? this.onPayment(event.event, payment) : ignored();
      }
      case 'refund.processed':
      case 'refund.failed':
      case 'refund.created': {
        const refund = event.payload.refund?.entity;
        return refund ? this.onRefund(event.event, refund) : ignored();
      }
      case 'token.confirmed':
      case 'token.rejected':
      case 'token.cancelled': {
        const token = event.payload.token?.entity;
        if (!token) {
          return ignored();
        }
        const status = event.event.slice('token.'.length) as 'confirmed' | 'rejected' | 'cancelled';
        // Forward only (gateway-states.ts): a late token.confirmed never revives a cancelled token.
        return advanced(await this.store.setTokenStatus(token.id, status), token.id);
      }
      case 'reserve_pay.block.active':
      case 'reserve_pay.block.released': {
        const block = event.payload.reserve_pay_block?.entity;
        if (!block) {
          return ignored();
        }
        const status = event.event === 'reserve_pay.block.active' ? 'active' : 'released';
        // Forward only: a late block.active never revives a released or expired block.
        return advanced(
          await this.store.setReserveBlockStatus(block.id, status, block.released),
          block.id,
        );
      }
      case 'payment_link.paid': {
        // The link's captured payment, the same as its payment.captured: settled (once) through
        // the link's hosted order, whichever of the three events comes first.
        const payment = event.payload.payment?.entity;
        return payment ? this.onPayment('payment.captured', payment) : ignored();
      }
      case 'payment_link.cancelled':
      case 'settlement.processed':
      default:
        // A link's own state is its hosted checkout's (moved only by its payment); settlements
        // are read from the gateway's report (src/settlements): recorded only.
        return ignored();
    }
  }

  private async onPayment(
    type: string,
    payment: GatewayPayment,
  ): Promise<{ outcome: GatewayEventOutcome; subject: string | null }> {
    const order = await this.store.findOrder(payment.order_id);
    if (!order) {
      return { outcome: 'unmatched', subject: null };
    }
    const captured = payment.status === 'captured' && type !== 'payment.failed';
    switch (order.kind) {
      case 'intent':
        return this.onIntentPayment(order, payment, captured, type);
      case 'hosted':
        if (!captured || !this.hosted) {
          // A failed attempt does not end a hosted order: the person may pay again on it.
          return { outcome: 'no_change', subject: order.subject_id };
        }
        return {
          outcome: await this.hosted.settleCaptured(order.subject_id, payment),
          subject: order.subject_id,
        };
      case 'registration':
        return { outcome: 'no_change', subject: order.subject_id };
    }
  }

  private async onIntentPayment(
    order: GatewayOrderRow,
    payment: GatewayPayment,
    captured: boolean,
    type: string,
  ): Promise<{ outcome: GatewayEventOutcome; subject: string }> {
    const subject = order.subject_id;
    const intent = await this.intents.find(subject);
    if (!intent) {
      return { outcome: 'unmatched', subject };
    }
    if (!captured && type !== 'payment.failed') {
      return { outcome: 'no_change', subject };
    }
    const result = captured
      ? resultOfPayments([payment], order, intent.amountPaise)
      : {
          status: 'failed' as const,
          reference: payment.id,
          failureCode: failureCodeOf(payment),
          message: payment.error_description ?? 'The gateway reported the payment failed',
          ids: { orderId: order.id, paymentId: payment.id },
        };
    if (!result || result.status === 'pending') {
      // A capture that does not match the intent (amount, currency) is never settled: refunded.
      return this.refundIntentCapture(intent, payment, {
        code: 'amount_mismatch',
        reason: 'The amount paid is not the amount of this payment.',
      });
    }
    const outcome = await this.payments.applyDebit(result, PaymentAttempt.ofIntent(subject));
    if (captured && outcome === null) {
      // The intent had already ended (its state is committed, so this read is true): settled on
      // this payment, or this capture is refunded in full. An outcome of this call is the
      // settlement itself (written at commit, not readable yet).
      const now = await this.intents.find(subject);
      if (now && !(now.status === 'settled' && now.railReference === payment.id)) {
        return this.refundIntentCapture(
          now,
          payment,
          now.status === 'settled'
            ? { code: 'duplicate_capture', reason: 'This payment had already been paid.' }
            : {
                code: now.declineCode ?? 'payment_not_settled',
                reason:
                  'This payment had already ended without being paid, so the amount captured is refunded in full.',
              },
        );
      }
    }
    return { outcome: outcome ? 'applied' : 'no_change', subject };
  }

  private async refundIntentCapture(
    intent: PaymentIntent,
    payment: GatewayPayment,
    why: { code: string; reason: string },
  ): Promise<{ outcome: GatewayEventOutcome; subject: string }> {
    const held = await this.captures.hold({
      payment,
      reasonCode: why.code,
      reason: why.reason,
      intentId: intent.id,
      buyerWorkspaceId: intent.buyerWorkspaceId,
      sellerWorkspaceId: intent.sellerWorkspaceId,
      sellerAgentId: intent.sellerAgentId,
    });
    return { outcome: held ? 'refund_due' : 'no_change', subject: intent.id };
  }

  private async onRefund(
    type: string,
    refund: GatewayRefund,
  ): Promise<{ outcome: GatewayEventOutcome; subject: string | null }> {
    const capture = await this.captures.onGatewayRefund(refund);
    if (capture) {
      return { outcome: capture, subject: refund.receipt };
    }
    const ours =
      (refund.receipt ? await this.refunds.findById(refund.receipt) : null) ??
      (await this.refunds.findByRailReference(refund.id));
    if (!ours) {
      return { outcome: 'unmatched', subject: null };
    }
    if (type === 'refund.created') {
      return { outcome: 'no_change', subject: ours.id };
    }
    const applied = await this.refunds.applyCredit(ours.id, resultOfRefund(refund));
    return { outcome: applied ? 'applied' : 'no_change', subject: ours.id };
  }

  /**
   * The unmatched-events sweep: orders of unmatched events are looked up at the gateway (ours
   * by the reference we sent: recorded), then every unmatched event whose order is known now is
   * applied. What stays `unmatched` is for no order of ours.
   */
  async reconcileUnmatched(): Promise<number> {
    await this.matcher.lookUpUnmatched();
    return this.retryUnmatched();
  }

  /**
   * Unmatched events whose order has become known since (the event overtook our own record of
   * the order): applied now, each in its own transaction, claimed with SKIP LOCKED.
   */
  async retryUnmatched(limit = 20): Promise<number> {
    let applied = 0;
    for (let i = 0; i < limit; i++) {
      const done = await this.tx.run(async () => {
        const row = await this.store.lockNextUnmatchedWithKnownOrder<GatewayWebhookEvent>();
        if (!row) {
          return null;
        }
        const { outcome, subject } = await this.apply(row.payload);
        await this.store.markReconciled(row.id, outcome, subject);
        return outcome;
      });
      if (done === null) {
        break;
      }
      applied += done === 'applied' ? 1 : 0;
    }
    return applied;
  }
}

/** The events applied through their payment's order (onPayment): the ones an order is looked up for. */
const PAYMENT_EVENTS: ReadonlySet<string> = new Set([
  'payment.authorized',
  'payment.captured',
  'payment.failed',
  'order.paid',
  'payment_link.paid',
]);

/** A forward-only status write's outcome: moved, not moved (late or repeated), or no such row. */
function advanced(
  result: { moved: boolean } | null,
  subject: string,
): { outcome: GatewayEventOutcome; subject: string } {
  return {
    outcome: result === null ? 'unmatched' : result.moved ? 'applied' : 'no_change',
    subject,
  };
}

function ignored(): { outcome: GatewayEventOutcome; subject: null } {
  return { outcome: 'ignored', subject: null };
}
