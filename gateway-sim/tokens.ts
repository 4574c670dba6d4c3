import type {
  GatewayCustomer,
  GatewayOrder,
  GatewayRecurringPaymentResult,
  GatewayToken,
  GatewayTokenFrequency,
} from '../src/rails/gateway/gateway-client.types';
import { paymentSignature } from '../src/rails/gateway/gateway-signatures';
import { SimCore } from './core';
import { badRequest, notFound } from './errors';
import { SIM_VPAS } from './outcomes';
import { AttemptResult, paymentFailedError, Payments } from './payments';
import { collection, copy } from './store';
import { asBody, Body, currency, int, notes, oneOf, optStr, str } from './validate';

export const FREQUENCIES: readonly GatewayTokenFrequency[] = [
  'daily',
  'weekly',
  'fortnightly',
  'monthly',
  'bimonthly',
  'quarterly',
  'half_yearly',
  'yearly',
  'as_presented',
];

/**
 * Customers and recurring tokens (UPI AutoPay mandates, DOMAIN.md A.1–A.4).
 * Registration: an order with `method:"upi"`, `customer_id` and `token:{max_amount, expire_at,
 * frequency}` creates an `initiated` token; the person approves it on `/authorize/<order_id>`
 * (or the control API) → token `confirmed`, the order paid by a payment carrying the token
 * (the first debit when the order's amount is above 0), `token.confirmed` webhook.
 */
export class Tokens {
  constructor(
    private readonly core: SimCore,
    private readonly payments: Payments,
  ) {}

  createCustomer(raw: unknown): GatewayCustomer {
    const body = asBody(raw);
    const customer: GatewayCustomer = {
      id: this.core.ids.next('cust'),
      entity: 'customer',
      name: str(body, 'name', { max: 50 }),
      email: optStr(body, 'email', { max: 254 }) ?? null,
      contact: optStr(body, 'contact', { max: 15 }) ?? null,
      notes: notes(body),
      created_at: this.core.clock.nowSec(),
    };
    this.core.store.customers.set(customer.id, customer);
    return copy(customer);
  }

  getCustomer(id: string): GatewayCustomer {
    return copy(this.customer(id));
  }

  listTokens(customerId: string) {
    this.customer(customerId);
    return collection(
      [...this.core.store.tokens.values()].filter((t) => t.customer_id === customerId),
    );
  }

  /** Is this order-create body a token registration? */
  static isRegistration(raw: unknown): boolean {
    const body = asBody(raw);
    return body.token !== undefined || body.customer_id !== undefined;
  }

  /** POST /v1/orders with a token: the registration order (amount may be 0) and its token. */
  createRegistrationOrder(raw: unknown): GatewayOrder {
    const body = asBody(raw);
    const amount = int(body, 'amount', { min: 0 });
    if (amount > 0 && amount < 100) {
      throw badRequest('The amount must be 0 or at least 100', 'amount');
    }
    currency(body);
    const receipt = str(body, 'receipt', { max: 40 });
    if (body.method !== 'upi') {
      throw badRequest('A token registration needs method "upi"', 'method');
    }
    const customerId = str(body, 'customer_id', { max: 40 });
    this.customer(customerId);
    const t = asBody(body.token);
    const maxAmount = int(t, 'max_amount', { min: 100 });
    if (amount > maxAmount) {
      throw badRequest('The amount may not exceed token.max_amount', 'amount');
    }
    const expireAt = int(t, 'expire_at', { min: this.core.clock.nowSec() + 1 });
    const frequency = oneOf(t, 'frequency', FREQUENCIES);

    const token: GatewayToken = {
      id: this.core.ids.next('token'),
      entity: 'token',
      method: 'upi',
      recurring: true,
      recurring_details: { status: 'initiated', failure_reason: null },
      max_amount: maxAmount,
      frequency,
      expired_at: expireAt,
      customer_id: customerId,
      vpa: null,
      created_at: this.core.clock.nowSec(),
    };
    this.core.store.tokens.set(token.id, token);
    const order = this.payments.newOrder({
      amount,
      receipt,
      notes: notes(body),
      customerId,
      tokenId: token.id,
    });
    this.core.store.tokenByOrder.set(order.wire.id, token.id);
    return copy(order.wire);
  }

  /** The person's answer on the authorise page (or the control API). */
  async authorize(
    orderOrTokenId: string,
    answer: { approve: boolean; vpa?: string },
  ): Promise<{ token: GatewayToken; result: AttemptResult }> {
    const tokenId = orderOrTokenId.startsWith('token_')
      ? orderOrTokenId
      : this.core.store.tokenByOrder.get(orderOrTokenId);
    const token = tokenId ? this.core.store.tokens.get(tokenId) : undefined;
    if (!token) {
      throw notFound('token registration');
    }
    if (token.recurring_details.status !== 'initiated') {
      throw badRequest(
        `The token is ${token.recurring_details.status}, not awaiting authorisation`,
      );
    }
    const orderId = [...this.core.store.tokenByOrder.entries()].find(
      ([, t]) => t === token.id,
    )?.[0];
    if (!orderId) {
      throw notFound('registration order');
    }
    const vpa = answer.vpa ?? SIM_VPAS.success;
    token.vpa = vpa;
    // The person's answer decides; outcome controls do not apply to a registration.
    if (answer.approve) {
      token.recurring_details.status = 'confirmed';
    } else {
      token.recurring_details = {
        status: 'rejected',
        failure_reason: 'The payer rejected the mandate',
      };
    }
    const result = await this.payments.attempt(orderId, {
      vpa,
      outcome: answer.approve ? { kind: 'succeed' } : { kind: 'fail', reason: 'mandate_rejected' },
      customerId: token.customer_id,
      tokenId: token.id,
      onCaptured: () => [{ event: 'token.confirmed', payload: { token: { entity: token } } }],
    });
    if (!answer.approve) {
      this.core.webhooks.emit([{ event: 'token.rejected', payload: { token: { entity: token } } }]);
    }
    return { token: copy(token), result };
  }

  /** DELETE /v1/customers/:id/tokens/:token_id — and the payer revoking it (control API). */
  cancel(customerId: string | null, tokenId: string): GatewayToken {
    const token = this.core.store.tokens.get(tokenId);
    if (!token || (customerId !== null && token.customer_id !== customerId)) {
      throw notFound('token');
    }
    if (token.recurring_details.status !== 'cancelled') {
      token.recurring_details = { status: 'cancelled', failure_reason: null };
      this.core.webhooks.emit([
        { event: 'token.cancelled', payload: { token: { entity: token } } },
      ]);
    }
    return copy(token);
  }

  /**
   * POST /v1/payments/create/recurring — a server-side debit on a confirmed token. Refused: a token
   * not confirmed, expired, of another customer, or an amount above its max_amount. The outcome
   * follows outcomes.ts with the VPA the person authorised the token with.
   */
  async recurringDebit(
    raw: unknown,
  ): Promise<{ body: GatewayRecurringPaymentResult; delayMs: number }> {
    const body: Body = asBody(raw);
    const amount = int(body, 'amount', { min: 100 });
    currency(body);
    const orderId = str(body, 'order_id', { max: 40 });
    const customerId = str(body, 'customer_id', { max: 40 });
    const tokenId = str(body, 'token', { max: 40 });
    if (body.recurring !== '1' && body.recurring !== 1 && body.recurring !== true) {
      throw badRequest('The recurring field must be "1"', 'recurring');
    }
    const description = optStr(body, 'description', { max: 255 }) ?? null;
    this.customer(customerId);
    const token = this.core.store.tokens.get(tokenId);
    if (!token || token.customer_id !== customerId) {
      throw badRequest('The token does not belong to this customer', 'token');
    }
    if (token.recurring_details.status !== 'confirmed') {
      throw badRequest(`The token is ${token.recurring_details.status}`, 'token');
    }
    if (this.core.clock.nowSec() >= token.expired_at) {
      throw badRequest('The token has expired', 'token');
    }
    if (amount > token.max_amount) {
      throw badRequest('The amount exceeds the maximum amount of the token', 'amount');
    }
    const order = this.payments.order(orderId);
    if (order.wire.amount !== amount) {
      throw badRequest('The amount must equal the order amount', 'amount');
    }
    const result = await this.payments.attempt(orderId, {
      vpa: token.vpa,
      customerId,
      tokenId,
      description,
      notes: notes(body),
    });
    if (result.failure) {
      throw paymentFailedError(result);
    }
    return {
      body: {
        razorpay_payment_id: result.payment.id,
        razorpay_order_id: result.order.id,
        razorpay_signature: paymentSignature(
          result.order.id,
          result.payment.id,
          this.core.config.keySecret,
        ),
      },
      delayMs: result.respondDelayMs,
    };
  }

  registrationToken(orderId: string): GatewayToken | null {
    const id = this.core.store.tokenByOrder.get(orderId);
    return id ? copy(this.core.store.tokens.get(id) ?? null) : null;
  }

  private customer(id: string): GatewayCustomer {
    const c = this.core.store.customers.get(id);
    if (!c) {
      throw notFound('customer');
    }
    return c;
  }
}
