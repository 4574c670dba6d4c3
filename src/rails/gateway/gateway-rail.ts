import { Logger } from '@nestjs/common';

import type { Clock } from '../../common/clock';
import { AppConfig, DEFAULT_GATEWAY_REFUND_LIMITS, GatewayConfig } from '../../config/app.config';
import { param, sql } from '../../database/fragment';
import { queryFragment } from '../../database/sql';
import { Tx } from '../../database/tx';
import { mandateParts } from '../../mandates/mandate.repository';
import {
  markRegistrationEnded,
  markRegistrationStarted,
} from '../../mandates/mandate-registration-state';
import type {
  PaymentRail,
  RailCreditRequest,
  RailDebitRequest,
  RailFailureCode,
  RailResult,
  RailStatus,
  RefundLimits,
} from '../payment-rail';
import { gatewayParts, GatewayRepository, ReserveBlockRow } from './gateway.repository';
import { GatewayClient, GatewayError } from './gateway-client';
import type {
  GatewayOrder,
  GatewayPayment,
  GatewayRefund,
  GatewayTokenFrequency,
} from './gateway-client.types';
import { verifyPaymentSignature } from './gateway-signatures';

/** Injection token of the GatewayClient (null on the sandbox rail). */
export const GATEWAY_CLIENT = Symbol('GATEWAY_CLIENT');

export function gatewayClientOf(config: AppConfig): GatewayClient | null {
  const g = config.gateway;
  return g
    ? new GatewayClient({
        apiUrl: g.apiUrl,
        keyId: g.keyId,
        keySecret: g.keySecret.reveal(),
        timeoutMs: g.timeoutMs,
      })
    : null;
}

/** Idempotency-Key of each call we make: derived from our own id, so a repeat is the same call. */
export const gatewayKeys = {
  order: (intentId: string) => `order-${intentId}`,
  debit: (intentId: string) => `debit-${intentId}`,
  refund: (refundId: string) => `refund-${refundId}`,
  hostedOrder: (checkoutId: string) => `hco-order-${checkoutId}`,
  customer: (mandateId: string) => `customer-${mandateId}`,
  registration: (mandateId: string) => `registration-${mandateId}`,
  reserveBlock: (mandateId: string) => `block-${mandateId}`,
  reserveDebit: (intentId: string) => `reserve-debit-${intentId}`,
  reserveRelease: (blockId: string) => `release-${blockId}`,
};

/** The gateway's failure reasons (error_reason) in our rail's codes. */
const FAILURE_CODES: Record<string, RailFailureCode> = {
  insufficient_funds: 'insufficient_funds',
  payment_declined: 'mandate_declined_by_bank',
  bank_unavailable: 'bank_unavailable',
};

export function failureCodeOf(payment: GatewayPayment): RailFailureCode {
  const reason = (payment as GatewayPayment & { error_reason?: string | null }).error_reason;
  return (reason && FAILURE_CODES[reason]) || 'payment_failed';
}

/**
 * What a list of the order's payments says about it: captured for the expected amount →
 * succeeded; still in flight (created / authorized) → pending; only failures → the last one's
 * failure; no payment → null (nothing was ever attempted). A captured payment of another amount
 * is never settled: pending, for a person to look at.
 */
export function resultOfPayments(
  payments: GatewayPayment[],
  order: Pick<GatewayOrder, 'id'>,
  amountPaise: number,
): RailResult | null {
  const ids = (p: GatewayPayment) => ({ orderId: order.id, paymentId: p.id });
  const captured = payments.find((p) => p.status === 'captured');
  if (captured) {
    if (captured.amount !== amountPaise || captured.currency !== 'INR') {
      return {
        status: 'pending',
        reference: captured.id,
        message: `captured ${captured.amount} ${captured.currency}, expected ${amountPaise} INR`,
        ids: ids(captured),
      };
    }
    return { status: 'succeeded', reference: captured.id, ids: ids(captured) };
  }
  const inFlight = payments.find((p) => p.status === 'created' || p.status === 'authorized');
  if (inFlight) {
    return {
      status: 'pending',
      reference: inFlight.id,
      message: `payment ${inFlight.status} at the gateway`,
      ids: ids(inFlight),
    };
  }
  const failed = payments.at(-1);
  if (failed) {
    return {
      status: 'failed',
      reference: failed.id,
      failureCode: failureCodeOf(failed),
      message: failed.error_description ?? 'The gateway reported the payment failed',
      ids: ids(failed),
    };
  }
  return null;
}

export function resultOfRefund(refund: GatewayRefund): RailResult {
  const ids = { paymentId: refund.payment_id, refundId: refund.id };
  switch (refund.status) {
    case 'processed':
      return { status: 'succeeded', reference: refund.id, ids };
    case 'failed':
      return {
        status: 'failed',
        reference: refund.id,
        failureCode: 'payment_failed',
        message: 'The gateway reported the refund failed',
        ids,
      };
    case 'pending':
      return { status: 'pending', reference: refund.id, message: 'refund pending', ids };
  }
}

/**
 * The gateway rail (docs/gateway.md "Going live on the gateway"): the PaymentRail port over the gateway's
 * HTTP API (src/rails/gateway/gateway-client.ts), chosen by RAIL=gateway in PaymentsModule. Never
 * called inside a database transaction (the pipeline calls it between its two transactions); its
 * own bookkeeping (which order pays what, a mandate's token) is written in short transactions of
 * its own.
 *
 * - A debit under a mandate opens (or finds again) the intent's order, receipt = intent id,
 *   Idempotency-Key derived from the intent id, and charges the mandate's recurring token
 *   (POST /v1/payments/create/recurring, Idempotency-Key derived from the intent id). A mandate
 *   with no token yet gets a customer and a token registration (in MODE=test the simulator's
 *   control API stands in for the person's approval; elsewhere the debit fails with
 *   mandate_not_registered until the gateway confirms the token by webhook).
 * - A hosted-page payment (no mandate) was made by the person in the gateway's widget: the debit
 *   only confirms what the gateway captured on the checkout's order.
 * - A credit refunds the intent's payment (receipt = refund id, Idempotency-Key from it).
 * - No definite answer (timeout, network error, 5xx, a payment still in flight) is `pending`, and
 *   a thrown GatewayError is treated the same by the pipeline: never a guess.
 */
export class GatewayRail implements PaymentRail {
  readonly name = 'gateway' as const;
  private readonly logger = new Logger(GatewayRail.name);

  constructor(
    private readonly client: GatewayClient,
    private readonly store: GatewayRepository,
    private readonly tx: Tx,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  private get gateway(): GatewayConfig {
    return this.config.gateway as GatewayConfig;
  }

  /**
   * The gateway's own limits (GATEWAY_REFUND_MIN_PAISE, default ₹1; GATEWAY_REFUND_MAX_PAISE,
   * default none), partial refunds allowed: a refund outside them is refused when it is asked, not
   * by the gateway after a person approved it.
   */
  get refundLimits(): RefundLimits {
    const limits = this.gateway.refundLimits ?? DEFAULT_GATEWAY_REFUND_LIMITS;
    return { ...limits, partialAllowed: true };
  }

  async debit(req: RailDebitRequest): Promise<RailResult> {
    if (req.mandateId === null) {
      return (await this.hostedResult(req)) ?? notPaidYet();
    }
    if (await this.paysFromReserveBlock(req.mandateId)) {
      return this.reserveDebit(req, req.mandateId);
    }
    const token = await this.confirmedToken(req.mandateId);
    if (!token) {
      return {
        status: 'failed',
        reference: req.intentId,
        failureCode: 'mandate_not_registered',
        message: 'The mandate is not registered with the payment gateway yet',
      };
    }
    const order = await this.intentOrder(req);
    const known = await this.paymentsResult(order, req.amountPaise);
    if (known) {
      return known;
    }
    try {
      const paid = await this.client.createRecurringPayment(
        {
          amount: req.amountPaise,
          currency: 'INR',
          order_id: order.id,
          customer_id: token.customerId,
          token: token.tokenId,
          recurring: '1',
          description: req.description.slice(0, 250),
          notes: { intent_id: req.intentId },
        },
        gatewayKeys.debit(req.intentId),
      );
      if (
        paid.razorpay_order_id !== order.id ||
        !verifyPaymentSignature(
          order.id,
          paid.razorpay_payment_id,
          paid.razorpay_signature,
          this.gateway.keySecret.reveal(),
        )
      ) {
        this.logger.error(
          { intent_id: req.intentId },
          'recurring debit answer failed its signature',
        );
        return { status: 'pending', reference: null, message: 'unverified gateway answer' };
      }
    } catch (err) {
      if (!(err instanceof GatewayError) || err.retryable) {
        throw err;
      }
      // Refused (4xx): a failed attempt or a refusal of the request; the order's payments say which.
      const after = await this.paymentsResult(order, req.amountPaise);
      return (
        after ?? {
          status: 'failed',
          reference: order.id,
          failureCode: 'gateway_refused',
          message: err.description,
          ids: { orderId: order.id },
        }
      );
    }
    return (await this.paymentsResult(order, req.amountPaise)) ?? notPaidYet();
  }

  async prepareMandate(mandateId: string): Promise<void> {
    if (await this.paysFromReserveBlock(mandateId)) {
      await this.activeBlock(mandateId);
    } else {
      await this.confirmedToken(mandateId);
    }
  }

  async endMandate(mandateId: string): Promise<void> {
    const row = await this.store.mandateToken(mandateId);
    if (!row?.token_id || row.status === 'cancelled' || row.status === 'rejected') {
      return;
    }
    const token = await this.client.cancelToken(row.customer_id, row.token_id);
    await this.tx.run(() => this.store.setTokenStatus(token.id, token.recurring_details.status));
  }

  async debitStatus(req: RailDebitRequest): Promise<RailStatus> {
    if (req.mandateId === null) {
      return (await this.hostedResult(req)) ?? { status: 'unknown' };
    }
    const stored = await this.store.orderOf('intent', req.intentId);
    const order = stored
      ? { id: stored.id }
      : (await this.client.findOrdersByReceipt(req.intentId))[0];
    if (!order) {
      return { status: 'unknown' };
    }
    if (!stored) {
      // Found by its receipt: the order of a debit whose answer was lost (a crash, a timeout).
      await this.rememberIntentOrder(order.id, req);
    }
    return (await this.paymentsResult(order, req.amountPaise)) ?? { status: 'unknown' };
  }

  async credit(req: RailCreditRequest): Promise<RailResult> {
    if (!req.debitReference) {
      return {
        status: 'failed',
        reference: req.refundId,
        failureCode: 'gateway_refused',
        message: 'The payment has no gateway payment to refund',
      };
    }
    try {
      const refund = await this.client.createRefund(
        req.debitReference,
        { amount: req.amountPaise, receipt: req.refundId, notes: { refund_id: req.refundId } },
        gatewayKeys.refund(req.refundId),
      );
      return resultOfRefund(refund);
    } catch (err) {
      if (!(err instanceof GatewayError) || err.retryable) {
        throw err;
      }
      const known = await this.creditStatus(req);
      if (known.status !== 'unknown') {
        return known;
      }
      return {
        status: 'failed',
        reference: req.refundId,
        failureCode: 'gateway_refused',
        message: err.description,
      };
    }
  }

  async creditStatus(req: RailCreditRequest): Promise<RailStatus> {
    if (!req.debitReference) {
      return { status: 'unknown' };
    }
    const refunds = await this.client.listPaymentRefunds(req.debitReference);
    const mine = refunds.find((r) => r.receipt === req.refundId);
    return mine ? resultOfRefund(mine) : { status: 'unknown' };
  }

  /**
   * Reserve Pay (docs/gateway.md "Reserve Pay"): a `upi_reserve_pay` mandate pays from the block it holds on
   * the gateway. A mandate that already pays on a recurring token (registered before blocks)
   * keeps its token.
   */
  private async paysFromReserveBlock(mandateId: string): Promise<boolean> {
    const id = param(mandateId);
    const [row] = await queryFragment<{ rail: string; has_token: boolean }[]>(
      this.tx.manager,
      sql`SELECT ${mandateParts.railOf(id)} AS rail,
              ${gatewayParts.hasMandateToken(id)} AS has_token`,
    );
    return row?.rail === 'upi_reserve_pay' && !row.has_token;
  }

  /**
   * A debit within the mandate's block: found again by receipt = intent id (the gateway opens an
   * order per block debit), else made once (Idempotency-Key from the intent id). More than what is
   * left of the block fails `block_exhausted`; a block the person has not approved, or that has
   * ended, fails `mandate_not_registered`.
   */
  private async reserveDebit(req: RailDebitRequest, mandateId: string): Promise<RailResult> {
    const [existing] = await this.client.findOrdersByReceipt(req.intentId);
    if (existing) {
      await this.rememberIntentOrder(existing.id, req);
      const known = await this.paymentsResult(existing, req.amountPaise);
      if (known) {
        return known;
      }
    }
    const block = await this.activeBlock(mandateId);
    if (!block) {
      return {
        status: 'failed',
        reference: req.intentId,
        failureCode: 'mandate_not_registered',
        message: 'The Reserve Pay block of this mandate is not approved or has ended',
      };
    }
    try {
      const payment = await this.client.debitReserveBlock(
        block.block_id,
        { amount: req.amountPaise, receipt: req.intentId },
        gatewayKeys.reserveDebit(req.intentId),
      );
      await this.rememberIntentOrder(payment.order_id, req);
      return resultOfPayments([payment], { id: payment.order_id }, req.amountPaise) ?? notPaidYet();
    } catch (err) {
      if (!(err instanceof GatewayError) || err.retryable) {
        throw err;
      }
      const [order] = await this.client.findOrdersByReceipt(req.intentId);
      if (order) {
        await this.rememberIntentOrder(order.id, req);
      }
      const after = order ? await this.paymentsResult(order, req.amountPaise) : null;
      if (after) {
        return after;
      }
      const exhausted = err.field === 'amount' && req.amountPaise >= 100;
      return {
        status: 'failed',
        reference: req.intentId,
        failureCode: exhausted ? 'block_exhausted' : 'gateway_refused',
        message: exhausted
          ? `The payment is more than what is left of the mandate's Reserve Pay block (${err.description})`
          : err.description,
      };
    }
  }

  /**
   * The mandate's block, created once (a customer and a block of the mandate's cap until its
   * valid_until) and refreshed from the gateway while it awaits the person. In MODE=test the
   * simulator's control API approves it as the person would; elsewhere the person approves it on
   * the gateway's page (the block's authorisation link) and the next debit sees it active.
   */
  private async activeBlock(mandateId: string): Promise<ReserveBlockRow | null> {
    let row = await this.store.reserveBlock(mandateId);
    if (!row) {
      if (!(await this.registering(mandateId, () => this.registerBlock(mandateId)))) {
        return null;
      }
      row = await this.store.reserveBlock(mandateId);
      if (!row) {
        return null;
      }
    }
    if (row.status === 'created') {
      if (this.config.mode === 'test') {
        await this.simulatorControl('/__sim/reserve_pay/authorize', {
          block_id: row.block_id,
          approve: true,
        });
      }
      const block = await this.client.getReserveBlock(row.block_id);
      if (block.status !== row.status) {
        // Forward only: a webhook may have recorded a later state meanwhile; that one stands.
        const now = await this.tx.run(() =>
          this.store.setReserveBlockStatus(block.id, block.status, block.released),
        );
        row = { ...row, status: now?.status ?? row.status };
      }
    }
    return row.status === 'active' ? row : null;
  }

  /** What the gateway is told of a mandate when it is registered: cap, end, billing cycle. */
  /**
   * The mandate's terms and its customer at the gateway (created once per mandate: the gateway
   * answers the same customer again for the same idempotency key), or null for no such mandate.
   */
  private async mandateCustomer(
    mandateId: string,
  ): Promise<{ mandate: MandateTerms; customer: { id: string } } | null> {
    const mandate = await this.mandateTerms(mandateId);
    if (!mandate) {
      return null;
    }
    const customer = await this.client.createCustomer(
      { name: `Mandate ${mandateId}`, notes: { mandate_id: mandateId } },
      gatewayKeys.customer(mandateId),
    );
    return { mandate, customer };
  }

  private async mandateTerms(mandateId: string): Promise<MandateTerms | null> {
    const [row] = await queryFragment<MandateTerms[]>(
      this.tx.manager,
      mandateParts.registrationTerms(param(mandateId)),
    );
    return row ?? null;
  }

  /** The hosted checkout's order, if the person paid it: what the gateway captured. */
  private async hostedResult(req: RailDebitRequest): Promise<RailResult | null> {
    const order = await this.store.orderOf('hosted', req.source.id);
    if (!order) {
      return null;
    }
    const payments = await this.client.listOrderPayments(order.id);
    const captured = payments.filter((p) => p.status === 'captured');
    // Failed attempts on a hosted order do not end it: the person may pay again on it.
    return captured.length ? resultOfPayments(captured, order, req.amountPaise) : null;
  }

  private async paymentsResult(order: { id: string }, amountPaise: number) {
    return resultOfPayments(await this.client.listOrderPayments(order.id), order, amountPaise);
  }

  /**
   * Records the order the gateway opened for a Reserve Pay debit (inside the debit call, with
   * receipt = the intent id) or that a lost answer left unrecorded, so its events match at once
   * (docs/gateway.md "Events for no order of ours"). Best effort: a failed write is logged and
   * the debit's answer stands; the webhook's look-up by receipt (GatewayOrderMatcher) records it.
   */
  private async rememberIntentOrder(orderId: string, req: RailDebitRequest): Promise<void> {
    try {
      await this.tx.run(() =>
        this.store.recordOrder(orderId, 'intent', req.intentId, req.amountPaise),
      );
    } catch (err) {
      this.logger.warn(
        { intent_id: req.intentId, order_id: orderId, err: (err as Error).message },
        'gateway order not recorded; its events are matched by receipt',
      );
    }
  }

  /** The intent's order: found again by our record, else created (idempotent) and recorded. */
  private async intentOrder(req: RailDebitRequest): Promise<{ id: string }> {
    const stored = await this.store.orderOf('intent', req.intentId);
    if (stored) {
      return { id: stored.id };
    }
    const order = await this.client.createOrder(
      {
        amount: req.amountPaise,
        currency: 'INR',
        receipt: req.intentId,
        notes: { intent_id: req.intentId },
      },
      gatewayKeys.order(req.intentId),
    );
    await this.tx.run(() =>
      this.store.recordOrder(order.id, 'intent', req.intentId, req.amountPaise),
    );
    return order;
  }

  /**
   * The mandate's confirmed recurring token, registering one when the mandate has none (a
   * customer and a registration order for up to the mandate's cap, valid until its end). In
   * MODE=test the simulator's control API confirms the registration as the person would; in
   * other modes the token stays `initiated` until the gateway's token.confirmed webhook.
   */
  private async confirmedToken(
    mandateId: string,
  ): Promise<{ customerId: string; tokenId: string } | null> {
    let row = await this.store.mandateToken(mandateId);
    if (!row) {
      const registered = await this.registering(mandateId, () => this.registerToken(mandateId));
      if (!registered) {
        return null;
      }
      row = await this.store.mandateToken(mandateId);
    }
    if (!row?.token_id) {
      return null;
    }
    if (row.status === 'initiated' && this.config.mode === 'test' && row.registration_order_id) {
      await this.approveOnSimulator(row.registration_order_id);
      const tokens = await this.client.listTokens(row.customer_id);
      const status = tokens.find((tk) => tk.id === row?.token_id)?.recurring_details.status;
      if (status) {
        // Forward only: a webhook may have recorded a later state meanwhile; that one stands.
        const now = await this.tx.run(() =>
          this.store.setTokenStatus(row?.token_id as string, status),
        );
        row = { ...row, status: now?.status ?? row.status };
      }
    }
    const tokenId = row.token_id as string;
    return row.status === 'confirmed' ? { customerId: row.customer_id, tokenId } : null;
  }

  /**
   * Registers the mandate's AutoPay token for the terms it has now (a customer and a registration
   * order for up to its cap, valid until its end); false for no such mandate.
   */
  private async registerToken(mandateId: string): Promise<boolean> {
    const terms = await this.mandateCustomer(mandateId);
    if (!terms) {
      return false;
    }
    const { mandate, customer } = terms;
    const order = await this.client.createOrder(
      {
        amount: 0,
        currency: 'INR',
        receipt: mandateId,
        method: 'upi',
        customer_id: customer.id,
        token: {
          max_amount: Number(mandate.per_payment_cap_paise),
          expire_at: Math.floor(new Date(mandate.valid_until).getTime() / 1000),
          // A recurring (AutoPay) mandate registers its billing cycle; others are as presented.
          frequency: (mandate.billing_cycle ?? 'as_presented') as GatewayTokenFrequency,
        },
        notes: { mandate_id: mandateId },
      },
      gatewayKeys.registration(mandateId),
    );
    await this.tx.run(async () => {
      await this.store.recordOrder(order.id, 'registration', mandateId, 0);
      await this.store.recordMandateToken({
        mandate_id: mandateId,
        customer_id: customer.id,
        token_id: order.token_id,
        registration_order_id: order.id,
        status: 'initiated',
      });
    });
    return true;
  }

  /** Creates the mandate's block for the terms it has now (its cap, until its end); false for no such mandate. */
  private async registerBlock(mandateId: string): Promise<boolean> {
    const terms = await this.mandateCustomer(mandateId);
    if (!terms) {
      return false;
    }
    const { mandate, customer } = terms;
    const block = await this.client.createReserveBlock(
      {
        customer_id: customer.id,
        amount: Number(mandate.per_payment_cap_paise),
        expire_at: Math.floor(new Date(mandate.valid_until).getTime() / 1000),
        receipt: mandateId,
      },
      gatewayKeys.reserveBlock(mandateId),
    );
    await this.tx.run(() =>
      this.store.recordReserveBlock({
        mandate_id: mandateId,
        customer_id: customer.id,
        block_id: block.id,
        amount_paise: String(block.amount),
        status: block.status,
      }),
    );
    return true;
  }

  /**
   * Holds the registration window (src/mandates/mandate-registration-state.ts; docs/mandates.md
   * "Amendments while the gateway registration is pending") around a registration this rail makes
   * (a debit's, after the registration at authorisation failed): its start is committed before
   * the terms are read, its end after the call, registered or failed. Meanwhile amendments of
   * the cap or validity are refused, so the token or block never carries less than the mandate.
   */
  private async registering<T>(mandateId: string, register: () => Promise<T>): Promise<T> {
    await this.tx.run(() => markRegistrationStarted(this.tx, mandateId, this.clock.now()));
    try {
      return await register();
    } finally {
      await this.tx
        .run(() => markRegistrationEnded(this.tx, mandateId, this.clock.now()))
        .catch((err: Error) =>
          this.logger.warn(
            { mandate_id: mandateId, err: err.message },
            'recording the end of the gateway registration failed; amendments wait for its bound',
          ),
        );
    }
  }

  /**
   * MODE=test only: the simulator's control API approves a token registration as the person
   * would on the gateway's page (docs/gateway-simulator.md "Control API"). Never used in live.
   */
  private approveOnSimulator(orderId: string): Promise<void> {
    return this.simulatorControl('/__sim/tokens/authorize', { order_id: orderId, approve: true });
  }

  /** MODE=test only: the simulator's control API answering as the person (a 400 = already answered). */
  private async simulatorControl(path: string, body: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.gateway.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.gateway.timeoutMs),
    });
    if (!res.ok && res.status !== 400) {
      throw new Error(`test-mode approval at ${path} answered ${res.status}`);
    }
  }
}

function notPaidYet(): RailResult {
  return { status: 'pending', reference: null, message: 'nothing captured at the gateway yet' };
}

/** What registering a mandate at the gateway needs of it (mandateParts.registrationTerms). */
interface MandateTerms {
  per_payment_cap_paise: string;
  valid_until: Date;
  billing_cycle: string | null;
}
