import type { CaptureRefundView } from '../gateway/capture-refunds';
import type { PaymentIntent } from '../payments/entities/payment-intent.entity';
import { payUrlOf } from '../quotes/quote.mapper';
import { HostedCheckoutResponse } from './dto/public-pay.response';
import type { HostedCheckout, HostedCheckoutStatus } from './hosted-checkout.entity';

export function statusUrlOf(appUrl: string, quoteId: string, checkoutId: string): string {
  return `${payUrlOf(appUrl, quoteId)}/status?checkout=${encodeURIComponent(checkoutId)}`;
}

/** What the widget needs besides the checkout (gateway rail). */
export interface WidgetFacts {
  keyId: string;
  name: string;
  description: string;
}

export function toCheckoutResponse(
  c: HostedCheckout,
  status: HostedCheckoutStatus,
  intent: PaymentIntent | null,
  appUrl: string,
  widget: WidgetFacts | null = null,
  refunds: CaptureRefundView[] = [],
): HostedCheckoutResponse {
  const paid = status === 'paid' && intent !== null;
  const gateway = widget !== null && Boolean(c.gatewayOrderId);
  return {
    id: c.id,
    object: 'hosted_checkout',
    quote_id: c.quoteId,
    status,
    amount_paise: c.amountPaise,
    currency: 'INR',
    rail: c.rail,
    attempts: c.attempts,
    intent_id: c.intentId,
    payment_reference: paid ? intent.railReference : null,
    receipt_id: paid ? intent.receiptId : null,
    failure_code:
      status === 'expired' && c.status === 'created' ? 'checkout_expired' : c.failureCode,
    failure_reason:
      status === 'expired' && c.status === 'created'
        ? 'This checkout expired before it was paid; start again.'
        : c.failureReason,
    expires_at: c.expiresAt.toISOString(),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    completed_at: c.completedAt?.toISOString() ?? null,
    status_url: statusUrlOf(appUrl, c.quoteId, c.id),
    key_id: gateway ? widget.keyId : null,
    order_id: gateway ? c.gatewayOrderId : null,
    amount: gateway ? c.amountPaise : null,
    name: gateway ? widget.name : null,
    description: gateway ? widget.description : null,
    callback_url: gateway ? `${payUrlOf(appUrl, c.quoteId)}/return` : null,
    refunds,
  };
}
