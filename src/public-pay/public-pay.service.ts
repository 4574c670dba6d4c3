import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AuditLog } from '../common/audit';
import { Clock } from '../common/clock';
import { RequestValidationError } from '../common/errors/validation';
import { formatRupees } from '../common/money';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { AfterCommit, Eventually, RefusalKeepingWrites, Tx } from '../database/tx';
import { CaptureRefunds } from '../gateway/capture-refunds';
import { gatewayErrors } from '../gateway/gateway.errors';
import { GatewayWebhooksService } from '../gateway/gateway-webhooks.service';
import type { Decline } from '../payments/buyer-rules';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { partyRefusalOf } from '../payments/party-gate';
import { PaymentAttempt } from '../payments/payment-attempt';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { PaymentSources } from '../payments/payment-sources';
import { PaymentsService } from '../payments/payments.service';
import type { Quote } from '../quotes/quote.entity';
import { effectiveStatus, NotPayableCode, whyNotPayable } from '../quotes/quote.state';
import { QuotesService } from '../quotes/quotes.service';
import { unguessableId } from '../quotes/unguessable-id';
import { GatewayEventOutcome, GatewayRepository } from '../rails/gateway/gateway.repository';
import { GatewayClient, GatewayError } from '../rails/gateway/gateway-client';
import type { GatewayPayment } from '../rails/gateway/gateway-client.types';
import { GATEWAY_CLIENT, gatewayKeys } from '../rails/gateway/gateway-rail';
import { verifyPaymentSignature } from '../rails/gateway/gateway-signatures';
import { PAYMENT_RAIL, PaymentRail } from '../rails/payment-rail';
import type {
  CheckoutOutcome,
  CompleteCheckoutDto,
  GatewayPaymentFields,
} from './dto/public-pay.dto';
import { HostedCheckoutResponse, PublicPayView } from './dto/public-pay.response';
import { HostedCheckout, HostedCheckoutStatus } from './hosted-checkout.entity';
import { toCheckoutResponse } from './hosted-checkout.mapper';
import { HostedCheckoutRepository } from './hosted-checkout.repository';
import {
  assertMove,
  checkoutExpiry,
  effectiveCheckoutStatus,
  isLive,
} from './hosted-checkout.state';
import { publicPayErrors } from './public-pay.errors';

/** Why a quote cannot be paid on the page now: a code for the API, a sentence for the person. */
interface NotPayable {
  code: string;
  reason: string;
}

/** Sweep name of the ended-checkout pass (gateway rail). */
export const ENDED_CHECKOUT_SWEEP = 'gateway.ended-checkout-captures';

/** What the person reads when their simulated payment fails. */
const SIMULATED_FAILURE =
  'The payment did not go through (sandbox: simulated failure). No money moved; you can try again.';

/**
 * The hosted payment page and the public pay API (spec §1, §4 "Public pay API", §5 rule 5): a
 * seller's agent sends a quote's pay_url to the buyer's person, who opens it, sees what they pay
 * for and to whom, and pays with no sign-in. The unguessable quote id (≈138 bits, see
 * quotes/unguessable-id.ts) is the only capability; every answer about an unknown id is the same.
 *
 * A hosted payment is an ordinary payment of the one pipeline (QuotesService.payOnPage →
 * PaymentsService.pay) with source {kind: 'hosted', id: hco_…}: the person's act on the page is
 * the approval, so no mandate is drawn and no separate approval is asked, while the buyer agent's
 * own rules (its daily cap) still apply. Settling writes the signed receipt, marks the quote paid
 * and raises intent.settled to the seller, exactly as when the buyer agent pays the quote.
 *
 * States: hosted-checkout.state.ts. Lock order: quote → hosted checkout → (pipeline) buyer agent →
 * intent; both rows are "the source" of PaymentsService's lock order.
 *
 * On the gateway rail (docs/gateway.md "Going live on the gateway") a start also opens a gateway order for
 * the checkout (after its transaction commits; receipt = the checkout id) and the answer carries
 * what the gateway's widget needs (key_id, order_id, amount, currency, name, description,
 * callback_url). The person pays in the widget; completing then takes the widget's three fields:
 * the payment signature is checked against the stored order id (constant time), the payment is
 * fetched from the gateway (captured, this order, this amount), and only then it settles through
 * the pipeline (settleCaptured). A gateway webhook settles the same way when the page never
 * reported the payment (the person closed the tab). A failed attempt leaves the checkout `created`
 * on the same order, so the person can pay again.
 */
@Injectable()
export class PublicPayService implements OnModuleInit {
  private readonly logger = new Logger(PublicPayService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly checkouts: HostedCheckoutRepository,
    private readonly quotes: QuotesService,
    private readonly payments: PaymentsService,
    private readonly intents: PaymentIntentRepository,
    private readonly sources: PaymentSources,
    private readonly gatewayStore: GatewayRepository,
    private readonly gatewayEvents: GatewayWebhooksService,
    private readonly captures: CaptureRefunds,
    private readonly sweeper: Sweeper,
    @Inject(GATEWAY_CLIENT) private readonly gateway: GatewayClient | null,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.gateway) {
      this.sweeper.register(ENDED_CHECKOUT_SWEEP, () => this.checkEndedCheckouts(), {
        everyMs: 30_000,
      });
    }
    this.gatewayEvents.registerHosted({
      settleCaptured: (checkoutId, payment) => this.settleCaptured(checkoutId, payment),
    });
    // The pipeline's second transaction (after the rail answered, in the request, from a gateway
    // webhook or from the reconciler) ends the attempt here: the checkout and its quote move
    // together, under the quote's lock then the checkout's.
    this.sources.register<HostedCheckout>('hosted', {
      lock: async (checkoutId, opts) => {
        const row = await this.checkouts.find(checkoutId);
        if (!row || !(await this.quotes.lockQuote(row.quoteId, opts))) {
          return null;
        }
        return this.checkouts.lock(checkoutId, opts);
      },
      onSettled: async (intent, attempt) => {
        await this.quotes.onIntentSettled(intent);
        const checkout = attempt.locked ?? (await this.checkouts.find(intent.sourceId));
        if (checkout && checkout.status === 'processing') {
          await this.finish(checkout, { status: 'paid', intentId: intent.id });
        }
      },
      onDeclined: async (intent, attempt) => {
        await this.quotes.onIntentDeclined(intent);
        const checkout = attempt.locked ?? (await this.checkouts.find(intent.sourceId));
        if (checkout && checkout.status === 'processing') {
          await this.finish(checkout, {
            status: 'failed',
            intentId: intent.id,
            failureCode: intent.declineCode ?? 'payment_failed',
            failureReason: this.words(
              { code: intent.declineCode ?? '', reason: intent.declineReason ?? '' },
              'the buyer',
            ),
          });
        }
      },
    });
  }

  /** GET /v1/public/pay/quotes/{id}: the public view (spec §2), with the buyer's rules applied. */
  async getView(quoteId: string): Promise<PublicPayView> {
    const view = await this.findView(quoteId);
    if (!view) {
      throw publicPayErrors.quoteNotFound();
    }
    return view;
  }

  /** The view, or null for an unknown id (the page renders its own 404). */
  async findView(quoteId: string): Promise<PublicPayView | null> {
    // Any id string is looked up (no format check first), so a malformed id costs what an unknown
    // well-formed one does: one primary-key lookup, then the same 404.
    const quote = await this.quotes.findForPage(quoteId);
    if (!quote) {
      return null;
    }
    const now = this.clock.now();
    const base = await this.quotes.publicView(quote, now);
    const blocked = await this.whyNotPayable(quote, base.quote.buyer_name, now);
    const latest = await this.checkouts.latest(quote.id);
    return {
      ...base,
      payable: blocked === null,
      reason: blocked?.reason ?? null,
      checkout: latest ? await this.respond(latest, quote, now) : null,
    };
  }

  /**
   * POST …/checkout: starts a hosted checkout, or returns the live one (at most one per quote).
   * 409 with the reason when the quote cannot be paid. On the gateway rail a checkout without its
   * gateway order gets one after commit (AfterCommit); 503 gateway_unavailable when the gateway
   * does not answer (starting again retries it on the same checkout).
   */
  async startCheckout(quoteId: string): Promise<Eventually<HostedCheckoutResponse>> {
    return this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(quoteId);
      if (!quote) {
        throw publicPayErrors.quoteNotFound();
      }
      const now = this.clock.now();
      const blocked = await this.whyNotPayable(quote, await this.buyerName(quote), now);
      const live = await this.checkouts.lockLive(quote.id);
      if (live) {
        const status = effectiveCheckoutStatus(live, effectiveStatus(quote, now), now);
        if (status === 'expired') {
          assertMove(live.status, 'expired');
          Object.assign(live, { status, updatedAt: now });
          await this.checkouts.update(live.id, { status, updatedAt: now });
        } else if (!blocked || status === 'processing') {
          return this.answerStart(live, quote, now);
        }
      }
      if (blocked) {
        throw publicPayErrors.notPayable(blocked.code, blocked.reason);
      }
      const checkout = Object.assign(new HostedCheckout(), {
        id: unguessableId('hco'),
        quoteId: quote.id,
        channel: 'page' as const,
        status: 'created' as const,
        amountPaise: quote.amountPaise,
        currency: 'INR' as const,
        rail: this.rail.name,
        intentId: null,
        attempts: 0,
        gatewayOrderId: null,
        gatewayLinkId: null,
        linkUrl: null,
        failureCode: null,
        failureReason: null,
        expiresAt: checkoutExpiry(quote.expiresAt, now),
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      });
      await this.checkouts.insert(checkout);
      await this.audit.record(
        quote.buyerWorkspaceId,
        PAGE_ACTOR,
        'hosted_checkout.started',
        checkout.id,
        {
          quote_id: quote.id,
        },
      );
      return this.answerStart(checkout, quote, now);
    });
  }

  /** A start's answer; on the gateway rail, once the checkout has its gateway order. */
  private async answerStart(
    checkout: HostedCheckout,
    quote: Quote,
    now: Date,
  ): Promise<Eventually<HostedCheckoutResponse>> {
    if (this.gateway && !checkout.gatewayOrderId && checkout.status === 'created') {
      const { id, amountPaise } = checkout;
      return new AfterCommit(async () => {
        await this.openGatewayOrder(id, amountPaise, quote.id);
        return this.getCheckout(quote.id, id);
      });
    }
    return this.respond(checkout, quote, now);
  }

  /** The checkout's gateway order (created once: receipt and Idempotency-Key from its id). */
  private async openGatewayOrder(checkoutId: string, amountPaise: number, quoteId: string) {
    const gateway = this.gateway as GatewayClient;
    let orderId: string;
    try {
      const order = await gateway.createOrder(
        {
          amount: amountPaise,
          currency: 'INR',
          receipt: checkoutId,
          notes: { quote_id: quoteId, checkout_id: checkoutId },
        },
        gatewayKeys.hostedOrder(checkoutId),
      );
      orderId = order.id;
    } catch (err) {
      this.logger.warn({ checkout_id: checkoutId, err: (err as Error).message }, 'gateway order');
      throw gatewayErrors.unavailable();
    }
    await this.tx.run(async () => {
      await this.gatewayStore.recordOrder(orderId, 'hosted', checkoutId, amountPaise);
      await this.checkouts.setGatewayOrder(checkoutId, orderId);
    });
  }

  /**
   * POST …/complete: `{outcome}` on the sandbox rail (completeCheckout), the widget's three fields
   * on the gateway rail (completeWithGateway). The other rail's fields are refused (400).
   */
  async complete(
    quoteId: string,
    checkoutId: string,
    body: CompleteCheckoutDto,
  ): Promise<Eventually<HostedCheckoutResponse>> {
    const fields = [body.gateway_payment_id, body.gateway_order_id, body.gateway_signature];
    if (this.rail.name === 'gateway') {
      if (body.outcome !== undefined) {
        throw wrongRail('$.outcome', 'not accepted on the gateway rail; send the widget’s fields');
      }
      const missing = ['gateway_payment_id', 'gateway_order_id', 'gateway_signature'].find(
        (_, i) => fields[i] === undefined,
      );
      if (missing) {
        throw wrongRail(`$.${missing}`, 'required on the gateway rail', 'missing');
      }
      return this.completeWithGateway(quoteId, checkoutId, body as GatewayPaymentFields);
    }
    if (fields.some((f) => f !== undefined)) {
      throw wrongRail('$.gateway_payment_id', 'only on the gateway rail');
    }
    if (body.outcome === undefined) {
      throw wrongRail('$.outcome', 'should not be null or undefined', 'missing');
    }
    return this.completeCheckout(quoteId, checkoutId, body.outcome);
  }

  /**
   * Gateway rail: the person paid in the widget, which handed the page the payment id, the order
   * id and the payment signature. Checked now, in the caller's transaction if any, with no network
   * call: the checkout belongs to the quote, has a gateway order, the posted order is that order,
   * and the signature is HMAC-SHA256(order_id|payment_id, key secret) for the stored order id
   * (constant time) — else 400 and nothing is recorded. Then, after commit (AfterCommit): the
   * payment is fetched from the gateway and must be captured, on this order, for this amount in
   * INR (else 409 payment_not_captured), and only then it settles through the pipeline.
   */
  async completeWithGateway(
    quoteId: string,
    checkoutId: string,
    f: GatewayPaymentFields,
  ): Promise<Eventually<HostedCheckoutResponse>> {
    const gateway = this.config.gateway;
    if (!gateway || !this.gateway) {
      throw gatewayErrors.notConfigured();
    }
    const quote = await this.quotes.findForPage(quoteId);
    if (!quote) {
      throw publicPayErrors.quoteNotFound();
    }
    const checkout = await this.checkouts.find(checkoutId);
    // A payment link (channel `link`) is paid on the gateway's link page, never completed here.
    if (!checkout || checkout.quoteId !== quote.id || checkout.channel !== 'page') {
      throw publicPayErrors.checkoutNotFound();
    }
    const orderId = checkout.gatewayOrderId;
    const signed =
      orderId !== null &&
      verifyPaymentSignature(
        orderId,
        f.gateway_payment_id,
        f.gateway_signature,
        gateway.keySecret.reveal(),
      );
    if (!signed || f.gateway_order_id !== orderId) {
      throw gatewayErrors.invalidPaymentSignature();
    }
    const client = this.gateway;
    return new AfterCommit(async () => {
      let payment: GatewayPayment;
      try {
        payment = await client.getPayment(f.gateway_payment_id);
      } catch (err) {
        if (err instanceof GatewayError && !err.retryable) {
          throw gatewayErrors.paymentNotCaptured('The gateway does not know this payment.');
        }
        throw gatewayErrors.unavailable();
      }
      if (
        payment.order_id !== orderId ||
        payment.amount !== checkout.amountPaise ||
        payment.currency !== 'INR'
      ) {
        throw gatewayErrors.paymentNotCaptured('This payment is not for this checkout.');
      }
      if (payment.status !== 'captured') {
        throw gatewayErrors.paymentNotCaptured(
          `The gateway shows this payment ${payment.status}, not captured.`,
        );
      }
      await this.tx.run(() => this.settleCaptured(checkoutId, payment));
      return this.getCheckout(quoteId, checkoutId);
    });
  }

  /**
   * Gateway rail: the checkout a redirect from the gateway names by its order, for the return
   * route ({app_url}/pay/<quote_id>/return). Null for an order that is not this quote's.
   */
  async checkoutOfGatewayOrder(quoteId: string, orderId: string): Promise<string | null> {
    const checkout = await this.checkouts.findByGatewayOrder(orderId);
    return checkout && checkout.quoteId === quoteId && checkout.channel === 'page'
      ? checkout.id
      : null;
  }

  /**
   * A payment captured at the gateway for a hosted checkout's order (verified by the caller: the
   * browser's signed fields and a fetch, a signed webhook, or the ended-checkout pass's own read),
   * settled through the pipeline in the caller's transaction: quote → checkout locked, created →
   * processing (attempts + 1), the pipeline records the intent with the rail's answer already
   * known and settles it (receipt, intent.settled, quote paid, checkout paid). Idempotent: the
   * payment a paid checkout settled on is no_change. A payment link (channel `link`, docs/gateway.md
   * "Payment links") is a hosted checkout whose order is the link's, so its capture settles here
   * too (the receipt also names the link).
   *
   * A capture that cannot settle on exactly one intent — the buyer's rules refuse it, the quote
   * was paid another way, canceled or expired before the payment was made, the amount is not the
   * checkout's, the checkout had already ended, a second capture on a paid order — is held for a
   * full refund (CaptureRefunds.hold, docs/gateway.md "Going live on the gateway"): `refund_due`.
   */
  async settleCaptured(checkoutId: string, payment: GatewayPayment): Promise<GatewayEventOutcome> {
    if (payment.status !== 'captured') {
      return 'no_change';
    }
    return this.tx.run(async () => {
      const row = await this.checkouts.find(checkoutId);
      const quote = row ? await this.quotes.lockQuote(row.quoteId) : null;
      const checkout = quote ? await this.checkouts.lock(checkoutId) : null;
      if (!quote || !checkout || payment.order_id !== checkout.gatewayOrderId) {
        return this.refundCapture(payment, quote, checkout, {
          code: 'checkout_unknown',
          reason: 'This payment does not belong to a payment request we can find.',
        });
      }
      if (payment.amount !== checkout.amountPaise || payment.currency !== 'INR') {
        return this.refundCapture(payment, quote, checkout, {
          code: 'amount_mismatch',
          reason: `The amount paid (${formatRupees(payment.amount)}) is not the amount asked (${formatRupees(checkout.amountPaise)}).`,
        });
      }
      const result = {
        status: 'succeeded' as const,
        reference: payment.id,
        ids: { orderId: payment.order_id, paymentId: payment.id },
      };
      if (checkout.intentId && (checkout.status === 'paid' || checkout.status === 'processing')) {
        const outcome =
          checkout.status === 'processing'
            ? await this.payments.applyDebit(result, PaymentAttempt.ofIntent(checkout.intentId))
            : null;
        if (outcome?.status === 'settled') {
          return 'applied';
        }
        // Otherwise the intent had ended before (committed): was it on this payment?
        const intent = outcome?.intent ?? (await this.intents.get(checkout.intentId));
        if (intent.status === 'settled' && intent.railReference === payment.id) {
          return 'no_change';
        }
        return this.refundCapture(
          payment,
          quote,
          checkout,
          intent.status === 'settled'
            ? REFUND_REASONS.quote_already_paid
            : {
                code: intent.declineCode ?? 'payment_not_settled',
                reason: this.words(
                  { code: intent.declineCode ?? '', reason: intent.declineReason ?? '' },
                  await this.buyerName(quote),
                ),
              },
          intent.id,
        );
      }
      // A seller or buyer no longer active (docs/architecture.md "Party lifecycle"): the capture
      // is refunded in full, never settled to a closed party.
      const party = await partyRefusalOf(this.tx.manager, quote.buyerAgentId, quote.sellerAgentId);
      if (party) {
        return this.refundCapture(payment, quote, checkout, {
          code: party.code,
          reason: `${party.message} Your payment is refunded in full.`,
        });
      }
      // The quote as it stood when the person paid at the gateway (a webhook may come later).
      const blocked = whyNotPayable(effectiveStatus(quote, paidAt(payment, this.clock.now())));
      if (blocked) {
        return this.refundCapture(payment, quote, checkout, refundReasonOf(blocked.code));
      }
      if (checkout.status !== 'created') {
        return this.refundCapture(payment, quote, checkout, REFUND_REASONS.checkout_closed);
      }
      const now = this.clock.now();
      await this.startProcessing(checkout, now);
      const attempt = PaymentAttempt.start<HostedCheckout, never>({
        kind: 'hosted',
        id: checkout.id,
      });
      const paid = await this.quotes.payOnPage(quote, attempt, {
        mode: { rail: 'caller_applies' },
        receiptExtra: {
          gateway_order_id: payment.order_id,
          ...(checkout.channel === 'link' ? { payment_link_id: checkout.gatewayLinkId } : {}),
        },
      });
      if (paid.status !== 'processing') {
        const decline =
          paid.status === 'declined' ? paid.decline : { code: 'payment_not_settled', reason: '' };
        const words = this.words(decline, await this.buyerName(quote));
        await this.finish(checkout, {
          status: 'failed',
          intentId: paid.intent.id,
          failureCode: decline.code,
          failureReason: words,
        });
        return this.refundCapture(
          payment,
          quote,
          checkout,
          { code: decline.code, reason: words },
          paid.intent.id,
        );
      }
      checkout.intentId = paid.intent.id;
      await this.checkouts.update(checkout.id, { intentId: paid.intent.id });
      await this.payments.applyDebit(result, attempt);
      await this.audit.record(
        quote.buyerWorkspaceId,
        PAGE_ACTOR,
        'hosted_checkout.completed',
        checkout.id,
        {
          quote_id: quote.id,
          gateway_payment_id: payment.id,
          intent_id: paid.intent.id,
        },
      );
      return 'applied';
    });
  }

  /**
   * The ended-checkout pass (gateway rail): for each checkout that ended unpaid, the gateway's own
   * list of its order's payments; a captured one is settled or held for a refund by
   * settleCaptured, exactly as if its webhook had come. So a capture whose webhook and page never
   * reached us still ends settled or refunded. Returns how many checkouts were looked at.
   */
  async checkEndedCheckouts(limit = 20): Promise<number> {
    const gateway = this.gateway;
    if (!gateway) {
      return 0;
    }
    const claimed = await this.tx.run(() =>
      this.checkouts.claimEndedForCaptureCheck(this.clock.now(), limit),
    );
    for (const c of claimed) {
      try {
        const payments = await gateway.listOrderPayments(c.gateway_order_id);
        for (const p of payments.filter((p) => p.status === 'captured')) {
          await this.settleCaptured(c.id, p);
        }
      } catch (err) {
        this.logger.warn({ checkout_id: c.id, err: (err as Error).message }, 'ended checkout');
        await this.tx.run(() => this.checkouts.releaseCaptureCheck(c.id));
      }
    }
    return claimed.length;
  }

  /** Holds a capture that cannot settle for a full refund (once per payment). */
  private async refundCapture(
    payment: GatewayPayment,
    quote: Quote | null,
    checkout: HostedCheckout | null,
    why: { code: string; reason: string },
    intentId: string | null = null,
  ): Promise<GatewayEventOutcome> {
    const held = await this.captures.hold({
      payment,
      reasonCode: why.code,
      reason: why.reason,
      checkoutId: checkout?.id ?? null,
      quoteId: quote?.id ?? null,
      intentId,
      buyerWorkspaceId: quote?.buyerWorkspaceId ?? null,
      sellerWorkspaceId: quote?.sellerWorkspaceId ?? null,
      sellerAgentId: quote?.sellerAgentId ?? null,
    });
    return held ? 'refund_due' : 'no_change';
  }

  /**
   * POST …/checkout/{id}/complete (sandbox rail): success pays through the pipeline, failure
   * records a failed attempt. A paid checkout answers success again unchanged (so twenty
   * concurrent successes make one payment and twenty identical answers; a success arriving while
   * the payment is on the rail waits for its end); anything else that is not live is 409.
   *
   * The payment's first phase runs here: the checkout and its quote are `processing` with the
   * intent when this transaction commits; the answer (AfterCommit) is read once the rail has
   * answered and the pipeline's second transaction has ended the attempt (paid or failed).
   */
  async completeCheckout(
    quoteId: string,
    checkoutId: string,
    outcome: CheckoutOutcome,
  ): Promise<Eventually<HostedCheckoutResponse>> {
    if (this.rail.name !== 'sandbox') {
      // On the gateway rail only a payment the gateway captured completes a checkout.
      throw wrongRail('$.outcome', 'not accepted on the gateway rail; send the widget’s fields');
    }
    return this.tx.run(async () => {
      const quote = await this.quotes.lockQuote(quoteId);
      if (!quote) {
        throw publicPayErrors.quoteNotFound();
      }
      const checkout = await this.checkouts.lock(checkoutId);
      if (!checkout || checkout.quoteId !== quote.id || checkout.channel !== 'page') {
        throw publicPayErrors.checkoutNotFound();
      }
      const now = this.clock.now();
      const quoteStatus = effectiveStatus(quote, now);
      const status = effectiveCheckoutStatus(checkout, quoteStatus, now);
      // pay()'s lifecycle gate, answered before the checkout's own state (a closure cancels the
      // quote, which would otherwise read as an expired checkout): docs/architecture.md
      // "Party lifecycle". A paid checkout still answers as paid.
      if (status !== 'paid') {
        const party = await partyRefusalOf(
          this.tx.manager,
          quote.buyerAgentId,
          quote.sellerAgentId,
        );
        if (party) {
          throw party;
        }
      }
      switch (status) {
        case 'paid':
          if (outcome === 'success') {
            return this.respond(checkout, quote, now);
          }
          throw publicPayErrors.checkoutAlreadyPaid();
        case 'failed':
          throw publicPayErrors.checkoutClosed(
            'failed',
            'This payment attempt failed; start a new checkout to try again.',
          );
        case 'processing':
          if (outcome === 'success') {
            // Another request's payment is on the rail: answer its outcome once it ends.
            return new AfterCommit(() => this.awaitEnd(quote.id, checkout.id));
          }
          throw publicPayErrors.checkoutInProgress();
        case 'expired': {
          const reason =
            whyNotPayable(quoteStatus)?.reason ??
            'This checkout expired before it was paid; start again.';
          if (checkout.status === 'created') {
            // Record the expiry even though the answer is a refusal.
            Object.assign(checkout, {
              status,
              failureCode: 'checkout_expired',
              failureReason: reason,
              updatedAt: now,
            });
            await this.checkouts.update(checkout.id, {
              status,
              failureCode: 'checkout_expired',
              failureReason: reason,
              updatedAt: now,
            });
            throw new RefusalKeepingWrites(publicPayErrors.checkoutClosed('expired', reason));
          }
          throw publicPayErrors.checkoutClosed('expired', reason);
        }
        case 'created':
          break;
      }
      // The quote is open or waiting for a person's decision on its agent's payment.
      const blocked = whyNotPayable(quoteStatus);
      if (blocked) {
        throw publicPayErrors.notPayable(blocked.code, blocked.reason);
      }
      await this.startProcessing(checkout, now);
      if (outcome === 'failure') {
        await this.finish(checkout, {
          status: 'failed',
          intentId: null,
          failureCode: 'payment_failed',
          failureReason: SIMULATED_FAILURE,
        });
      } else {
        const paid = await this.quotes.payOnPage(
          quote,
          PaymentAttempt.start({ kind: 'hosted', id: checkout.id }),
        );
        if (paid.status === 'processing') {
          // The rail is called after commit; the pipeline's second transaction ends the attempt.
          checkout.intentId = paid.intent.id;
          await this.checkouts.update(checkout.id, { intentId: paid.intent.id });
        } else if (paid.status === 'declined') {
          await this.finish(checkout, {
            status: 'failed',
            intentId: paid.intent.id,
            failureCode: paid.decline.code,
            failureReason: this.words(paid.decline, await this.buyerName(quote)),
          });
        } else {
          throw new Error('a payment authorised on the page never waits for an approval');
        }
      }
      await this.audit.record(
        quote.buyerWorkspaceId,
        PAGE_ACTOR,
        'hosted_checkout.completed',
        checkout.id,
        {
          quote_id: quote.id,
          outcome,
          status: checkout.status,
          intent_id: checkout.intentId,
        },
      );
      if (checkout.status === 'processing') {
        return new AfterCommit(() => this.getCheckout(quote.id, checkout.id));
      }
      return this.respond(checkout, quote, this.clock.now());
    });
  }

  /**
   * The checkout once its payment has ended, read again every 50 ms for at most the time a rail
   * call may take; still processing after that, it is answered as it stands (processing).
   */
  private async awaitEnd(quoteId: string, checkoutId: string): Promise<HostedCheckoutResponse> {
    const deadline = Date.now() + (this.config.gateway?.timeoutMs ?? 5_000);
    for (;;) {
      const current = await this.getCheckout(quoteId, checkoutId);
      if (current.status !== 'processing' || Date.now() >= deadline) {
        return current;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** GET …/checkout/{id}: the checkout's state; a checkout of another quote is 404. */
  async getCheckout(quoteId: string, checkoutId: string): Promise<HostedCheckoutResponse> {
    const quote = await this.quotes.findForPage(quoteId);
    if (!quote) {
      throw publicPayErrors.quoteNotFound();
    }
    const checkout = await this.checkouts.find(checkoutId);
    if (!checkout || checkout.quoteId !== quote.id) {
      throw publicPayErrors.checkoutNotFound();
    }
    return this.respond(checkout, quote, this.clock.now());
  }

  /**
   * The quote's own status first (expired, paid, canceled, waiting for a decision), then the
   * buyer's rules the pipeline would apply to a payment authorised on the page (its daily cap).
   */
  private async whyNotPayable(
    quote: Quote,
    buyerName: string,
    now: Date,
  ): Promise<NotPayable | null> {
    const status = effectiveStatus(quote, now);
    // pay()'s lifecycle gate asked beforehand (docs/architecture.md "Party lifecycle"), before
    // the quote's own status: a closed seller's quote was canceled by the closure, and the
    // person reads why. A paid quote stays paid.
    if (status !== 'paid') {
      const party = await partyRefusalOf(this.tx.manager, quote.buyerAgentId, quote.sellerAgentId);
      if (party) {
        return { code: party.code, reason: party.message };
      }
    }
    const blocked = whyNotPayable(status);
    if (blocked) {
      return blocked;
    }
    const decline = await this.payments.previewDecline({
      mandateId: null,
      authorisedBy: 'person_on_page',
      buyerAgentId: quote.buyerAgentId,
      sellerAgentId: quote.sellerAgentId,
      amountPaise: quote.amountPaise,
    });
    return decline ? { code: 'payment_refused', reason: this.words(decline, buyerName) } : null;
  }

  /** A decline from the rules or the rail, in words for the person on the page. */
  private words(decline: Decline | { code: string; reason: string }, buyerName: string): string {
    switch (decline.code) {
      case 'daily_cap_exceeded':
        return `Paying this would take ${buyerName} over its daily spending limit of ${formatRupees(this.config.dailyCapPaise)}. Try again tomorrow, or ask the seller for a smaller quote.`;
      case 'insufficient_funds':
      case 'mandate_declined_by_bank':
      case 'bank_unavailable':
        return `The payment did not go through: ${lowerFirst(decline.reason)}. No money moved; you can try again.`;
      default:
        return "The buyer's spending rules do not allow this payment right now. No money moved.";
    }
  }

  /** A new attempt on the checkout (locked by the caller): `processing`, its attempts counted. */
  private async startProcessing(checkout: HostedCheckout, now: Date): Promise<void> {
    assertMove(checkout.status, 'processing');
    Object.assign(checkout, {
      status: 'processing',
      attempts: checkout.attempts + 1,
      updatedAt: now,
    });
    await this.checkouts.update(checkout.id, {
      status: 'processing',
      attempts: checkout.attempts,
      updatedAt: now,
    });
  }

  /** The terminal move of an attempt (processing → paid | failed). */
  private async finish(
    checkout: HostedCheckout,
    to:
      | { status: 'paid'; intentId: string }
      | { status: 'failed'; intentId: string | null; failureCode: string; failureReason: string },
  ): Promise<void> {
    assertMove(checkout.status, to.status);
    const now = this.clock.now();
    const changes = {
      status: to.status,
      intentId: to.intentId,
      failureCode: to.status === 'failed' ? to.failureCode : null,
      failureReason: to.status === 'failed' ? to.failureReason : null,
      updatedAt: now,
      completedAt: now,
    };
    Object.assign(checkout, changes);
    await this.checkouts.update(checkout.id, changes);
  }

  private async respond(
    checkout: HostedCheckout,
    quote: Quote,
    now: Date,
  ): Promise<HostedCheckoutResponse> {
    const status: HostedCheckoutStatus = effectiveCheckoutStatus(
      checkout,
      effectiveStatus(quote, now),
      now,
    );
    const intent: PaymentIntent | null =
      checkout.intentId && !isLive(status) ? await this.intents.get(checkout.intentId) : null;
    return toCheckoutResponse(
      checkout,
      status,
      intent,
      this.config.appUrl,
      this.config.gateway
        ? {
            keyId: this.config.gateway.keyId,
            name: quote.sellerName,
            description: describeQuote(quote),
          }
        : null,
      // Only the gateway captures money the service may have to give back.
      checkout.gatewayOrderId ? await this.captures.ofCheckout(checkout.id) : [],
    );
  }

  private buyerName(quote: Quote): Promise<string> {
    return this.quotes.buyerName(quote);
  }
}

/** Audit actor for what the person on the hosted page does (there is no signed-in person). */
const PAGE_ACTOR = { type: 'system' as const, id: 'pay_page' };

/** The widget's description line: the items, short. */
function describeQuote(quote: Quote): string {
  const items = quote.lineItems
    .map((li) => (li.quantity > 1 ? `${li.quantity} × ${li.name}` : li.name))
    .join(', ');
  return items.length > 120 ? `${items.slice(0, 119)}…` : items;
}

/** A field of the other rail, or a missing one: refused like a validation error (not stored). */
function wrongRail(param: string, what: string, code = 'invalid'): RequestValidationError {
  return new RequestValidationError(400, 'invalid_request', code, `${param}: ${what}`, param);
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/** Why a capture on a hosted checkout is refunded, in words for the person who paid. */
const REFUND_REASONS = {
  quote_already_paid: {
    code: 'quote_already_paid',
    reason:
      'This payment request had already been paid, so this second payment is refunded in full.',
  },
  quote_canceled: {
    code: 'quote_canceled',
    reason: 'The seller canceled this payment request before your payment arrived.',
  },
  quote_expired: {
    code: 'quote_expired',
    reason: 'This payment request had expired before your payment arrived.',
  },
  quote_busy: {
    code: 'quote_payment_in_progress',
    reason: 'Another payment for this request was already under way.',
  },
  checkout_closed: {
    code: 'checkout_closed',
    reason: 'This payment attempt had already ended before your payment arrived.',
  },
} as const;

function refundReasonOf(code: NotPayableCode): { code: string; reason: string } {
  switch (code) {
    case 'quote_already_paid':
    case 'quote_canceled':
    case 'quote_expired':
      return REFUND_REASONS[code];
    case 'quote_pending_approval':
    case 'quote_payment_in_progress':
      return { ...REFUND_REASONS.quote_busy, code };
  }
}

/** When the person paid at the gateway (its created_at, seconds), never later than now. */
function paidAt(payment: GatewayPayment, now: Date): Date {
  const at = Number.isFinite(payment.created_at) ? payment.created_at * 1000 : now.getTime();
  return new Date(Math.min(at, now.getTime()));
}
