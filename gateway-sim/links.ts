import type { GatewayPaymentLink } from '../src/rails/gateway/gateway-client.types';
import { paymentLinkSignature } from '../src/rails/gateway/gateway-signatures';
import { SimCore } from './core';
import { badRequest, notFound } from './errors';
import { AttemptResult, paymentFailedError, Payments } from './payments';
import { copy } from './store';
import { asBody, Body, currency, int, notes, optInt, optStr, str } from './validate';

export interface LinkPaid {
  link: GatewayPaymentLink;
  /** Where the page sends the payer: callback_url with the signed query, or null. */
  redirect: string | null;
  respondDelayMs: number;
}

/**
 * Payment links: each link has its own order (receipt = reference_id); `short_url` is the
 * simulator's pay page `/l/<id>` with Pay / Fail. Paying sends payment.captured, order.paid and
 * payment_link.paid; with a callback_url the page then goes to
 * `callback_url?gateway_payment_id&gateway_payment_link_id&gateway_payment_link_reference_id&
 * gateway_payment_link_status&gateway_signature` (signature: gateway-signatures.ts
 * paymentLinkSignature). A link past `expire_by` reads as expired and cannot be paid.
 */
export class PaymentLinks {
  constructor(
    private readonly core: SimCore,
    private readonly payments: Payments,
  ) {}

  create(raw: unknown): GatewayPaymentLink {
    const body: Body = asBody(raw);
    const amount = int(body, 'amount', { min: 100 });
    currency(body);
    const referenceId = str(body, 'reference_id', { max: 40 });
    const description = str(body, 'description', { max: 2048 });
    const callbackUrl = optStr(body, 'callback_url', { max: 2048 }) ?? null;
    if (callbackUrl !== null && !/^https?:\/\//.test(callbackUrl)) {
      throw badRequest('The callback_url must be an http(s) URL', 'callback_url');
    }
    if (body.callback_method !== undefined && body.callback_method !== 'get') {
      throw badRequest('The callback_method must be "get"', 'callback_method');
    }
    const expireBy =
      optInt(body, 'expire_by', { min: this.core.clock.nowSec() + 1, max: 4_102_444_800 }) ?? null;
    if ([...this.core.store.links.values()].some((l) => l.reference_id === referenceId)) {
      throw badRequest(
        `The reference_id ${referenceId} is already used by another payment link`,
        'reference_id',
      );
    }
    const id = this.core.ids.next('plink');
    const order = this.payments.newOrder({
      amount,
      receipt: referenceId,
      notes: notes(body),
      linkId: id,
    });
    const link: GatewayPaymentLink = {
      id,
      entity: 'payment_link',
      short_url: `${this.core.origin}/l/${id}`,
      status: 'created',
      amount,
      amount_paid: 0,
      currency: 'INR',
      reference_id: referenceId,
      description,
      order_id: order.wire.id,
      callback_url: callbackUrl,
      callback_method: callbackUrl ? 'get' : null,
      expire_by: expireBy,
      notes: notes(body),
      created_at: this.core.clock.nowSec(),
    };
    this.core.store.links.set(id, link);
    return copy(link);
  }

  get(id: string): GatewayPaymentLink {
    return copy(this.link(id));
  }

  cancel(id: string): GatewayPaymentLink {
    const link = this.link(id);
    if (link.status !== 'created') {
      throw badRequest(`The payment link is ${link.status} and cannot be cancelled`);
    }
    link.status = 'cancelled';
    return copy(link);
  }

  /** The payer on the link page pressed Pay (or Fail). */
  async pay(id: string, input: { fail: boolean; vpa: string | null }): Promise<LinkPaid> {
    const link = this.link(id);
    if (link.status !== 'created') {
      throw badRequest(`The payment link is ${link.status}`);
    }
    const result: AttemptResult = await this.payments.attempt(link.order_id, {
      vpa: input.vpa,
      ...(input.fail ? { outcome: { kind: 'fail', reason: 'payment_failed' } as const } : {}),
      onCaptured: (payment) => {
        link.status = 'paid';
        link.amount_paid = payment.amount;
        return [
          {
            event: 'payment_link.paid',
            payload: {
              payment_link: { entity: link },
              payment: { entity: payment },
              order: { entity: this.payments.order(link.order_id).wire },
            },
          },
        ];
      },
    });
    if (result.failure) {
      throw paymentFailedError(result);
    }
    let redirect: string | null = null;
    if (link.callback_url) {
      const url = new URL(link.callback_url);
      url.searchParams.set('gateway_payment_id', result.payment.id);
      url.searchParams.set('gateway_payment_link_id', link.id);
      url.searchParams.set('gateway_payment_link_reference_id', link.reference_id);
      url.searchParams.set('gateway_payment_link_status', link.status);
      url.searchParams.set(
        'gateway_signature',
        paymentLinkSignature(
          link.id,
          link.reference_id,
          link.status,
          result.payment.id,
          this.core.config.keySecret,
        ),
      );
      redirect = url.toString();
    }
    return { link: copy(link), redirect, respondDelayMs: result.respondDelayMs };
  }

  /** The link, expired first when its expire_by has passed. */
  link(id: string): GatewayPaymentLink {
    const link = this.core.store.links.get(id);
    if (!link) {
      throw notFound('payment_link');
    }
    if (
      link.status === 'created' &&
      link.expire_by !== null &&
      this.core.clock.nowSec() >= link.expire_by
    ) {
      link.status = 'expired';
    }
    return link;
  }
}
