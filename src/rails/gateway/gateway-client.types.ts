/**
 * Wire types of the payment gateway's HTTP API (Razorpay-style), as written down in
 * docs/gateway-simulator.md. Field names are the gateway's (snake_case); amounts are integer paise,
 * timestamps unix seconds. The simulator in gateway-sim/ speaks exactly these shapes.
 */

export interface GatewayClientOptions {
  /** Base address of the gateway API, without the `/v1` suffix (e.g. `http://127.0.0.1:4010`). */
  apiUrl: string;
  keyId: string;
  /** Sent only in the Authorization header; never logged, never part of an error. */
  keySecret: string;
  /** Per-request timeout; a request that exceeds it fails with a retryable `GatewayError`. */
  timeoutMs: number;
}

export type GatewayCurrency = 'INR';
export type GatewayNotes = Record<string, string>;

/** Error codes in the gateway's error body, plus two of ours for calls that got no answer. */
export type GatewayErrorCode =
  'BAD_REQUEST_ERROR' | 'GATEWAY_ERROR' | 'SERVER_ERROR' | 'NETWORK_ERROR' | 'TIMEOUT';

export interface GatewayErrorBody {
  error: {
    code: GatewayErrorCode;
    description: string;
    field?: string | null;
    /** Machine-readable cause of a failed payment (see GatewayPayment.error_reason). */
    reason?: string | null;
    /** Set when a payment attempt failed: the failed payment and its order. */
    metadata?: { order_id?: string; payment_id?: string } | null;
  };
}

/** `{entity: "collection", count, items}` — the client's list methods return `items`. */
export interface GatewayCollection<T> {
  entity: 'collection';
  count: number;
  items: T[];
}

// ---- Orders ---------------------------------------------------------------------------------

export type GatewayOrderStatus = 'created' | 'attempted' | 'paid';

export interface GatewayTokenRequest {
  max_amount: number;
  /** Unix seconds. */
  expire_at: number;
  frequency: GatewayTokenFrequency;
}

export interface CreateGatewayOrderInput {
  /** ≥ 100 paise for a payment order; 0 is allowed for a token registration order. */
  amount: number;
  currency: GatewayCurrency;
  /** ≤ 40 characters; our own reference (e.g. the intent id). */
  receipt: string;
  notes?: GatewayNotes;
  /** Capture successful payments at once (default true); false leaves them `authorized`. */
  payment_capture?: boolean;
  /** Token (UPI AutoPay mandate) registration: `method: "upi"`, `customer_id` and `token`. */
  method?: 'upi';
  customer_id?: string;
  token?: GatewayTokenRequest;
}

export interface GatewayOrder {
  id: string;
  entity: 'order';
  amount: number;
  amount_paid: number;
  amount_due: number;
  currency: GatewayCurrency;
  receipt: string;
  status: GatewayOrderStatus;
  attempts: number;
  notes: GatewayNotes;
  created_at: number;
  /** Set on registration orders (simulator addition, present on every order, null otherwise). */
  customer_id: string | null;
  /** The token a registration order created (initiated until the person authorises it). */
  token_id: string | null;
}

// ---- Payments -------------------------------------------------------------------------------

export type GatewayPaymentStatus = 'created' | 'authorized' | 'captured' | 'failed';
export type GatewayRefundStatusOfPayment = null | 'partial' | 'full';

export interface GatewayPayment {
  id: string;
  entity: 'payment';
  amount: number;
  currency: GatewayCurrency;
  status: GatewayPaymentStatus;
  order_id: string;
  method: 'upi';
  vpa: string | null;
  captured: boolean;
  amount_refunded: number;
  refund_status: GatewayRefundStatusOfPayment;
  error_code: string | null;
  error_description: string | null;
  /**
   * Why a payment failed: insufficient_funds | payment_declined | bank_unavailable |
   * payment_failed | token_invalid (simulator addition; docs/gateway-simulator.md "Outcomes").
   */
  error_reason: string | null;
  /** Gateway fee in paise: 2% of amount, rounded half up; 0 until captured. Excludes `tax`. */
  fee: number;
  /** GST on the fee: 18% of `fee`, rounded half up. The merchant gets amount − fee − tax. */
  tax: number;
  customer_id: string | null;
  token_id: string | null;
  description: string | null;
  notes: GatewayNotes;
  created_at: number;
}

export interface CaptureGatewayPaymentInput {
  amount: number;
  currency: GatewayCurrency;
}

export interface CreateRecurringPaymentInput {
  amount: number;
  currency: GatewayCurrency;
  order_id: string;
  customer_id: string;
  /** The token id (`token_…`). */
  token: string;
  recurring: '1';
  description?: string;
  notes?: GatewayNotes;
}

/** Field names as the real gateway's. */
export interface GatewayRecurringPaymentResult {
  razorpay_payment_id: string;
  razorpay_order_id: string;
  razorpay_signature: string;
}

// ---- Customers and tokens -------------------------------------------------------------------

export interface CreateGatewayCustomerInput {
  name: string;
  email?: string;
  contact?: string;
  notes?: GatewayNotes;
}

export interface GatewayCustomer {
  id: string;
  entity: 'customer';
  name: string;
  email: string | null;
  contact: string | null;
  notes: GatewayNotes;
  created_at: number;
}

export type GatewayTokenFrequency =
  | 'daily'
  | 'weekly'
  | 'fortnightly'
  | 'monthly'
  | 'bimonthly'
  | 'quarterly'
  | 'half_yearly'
  | 'yearly'
  | 'as_presented';

export type GatewayTokenStatus = 'initiated' | 'confirmed' | 'rejected' | 'cancelled';

export interface GatewayToken {
  id: string;
  entity: 'token';
  method: 'upi';
  recurring: true;
  recurring_details: { status: GatewayTokenStatus; failure_reason: string | null };
  max_amount: number;
  frequency: GatewayTokenFrequency;
  /** Unix seconds. */
  expired_at: number;
  customer_id: string;
  vpa: string | null;
  created_at: number;
}

// ---- Refunds --------------------------------------------------------------------------------

export type GatewayRefundStatus = 'pending' | 'processed' | 'failed';

export interface CreateGatewayRefundInput {
  /** Omit for a full refund of what is left (captured − refunded). */
  amount?: number;
  notes?: GatewayNotes;
  receipt?: string;
}

export interface GatewayRefund {
  id: string;
  entity: 'refund';
  amount: number;
  payment_id: string;
  currency: GatewayCurrency;
  status: GatewayRefundStatus;
  receipt: string | null;
  notes: GatewayNotes;
  created_at: number;
}

// ---- Settlements ----------------------------------------------------------------------------

export interface GatewaySettlement {
  id: string;
  entity: 'settlement';
  /** Net amount paid out: payments − refunds − fees − tax. */
  amount: number;
  /** Sum of the payments' `fee` (excluding tax). */
  fees: number;
  /** Sum of the payments' `tax`. */
  tax: number;
  utr: string;
  status: 'processed';
  created_at: number;
}

export interface GatewayReconQuery {
  year: number;
  month: number;
  day?: number;
}

export interface GatewayReconLine {
  entity_id: string;
  type: 'payment' | 'refund';
  amount: number;
  fee: number;
  tax: number;
  /** What left our balance: the refund amount for a refund, else 0. */
  debit: number;
  /** What reached our balance: amount − fee − tax for a payment, else 0. */
  credit: number;
  settlement_id: string;
  settlement_utr: string;
  order_id: string | null;
  order_receipt: string | null;
  /** Unix seconds; the report's day is the calendar day in IST (UTC+05:30). */
  settled_at: number;
}

// ---- Payment links --------------------------------------------------------------------------

export type GatewayPaymentLinkStatus = 'created' | 'paid' | 'cancelled' | 'expired';

export interface CreateGatewayPaymentLinkInput {
  amount: number;
  currency: GatewayCurrency;
  reference_id: string;
  description: string;
  customer?: { name?: string; email?: string; contact?: string };
  callback_url?: string;
  callback_method?: 'get';
  notes?: GatewayNotes;
  /** Unix seconds. */
  expire_by?: number;
}

export interface GatewayPaymentLink {
  id: string;
  entity: 'payment_link';
  short_url: string;
  status: GatewayPaymentLinkStatus;
  amount: number;
  amount_paid: number;
  currency: GatewayCurrency;
  reference_id: string;
  description: string;
  order_id: string;
  callback_url: string | null;
  callback_method: 'get' | null;
  expire_by: number | null;
  notes: GatewayNotes;
  created_at: number;
}

// ---- Reserve Pay (single block, multiple debits) -------------------------------------------

export type GatewayReserveBlockStatus = 'created' | 'active' | 'released' | 'expired';

export interface CreateGatewayReserveBlockInput {
  customer_id: string;
  vpa?: string;
  amount: number;
  /** Unix seconds. */
  expire_at: number;
  receipt: string;
}

export interface GatewayReserveBlock {
  id: string;
  entity: 'reserve_pay.block';
  customer_id: string;
  vpa: string | null;
  amount: number;
  debited: number;
  /** Amount given back to the payer on release or expiry (0 before). */
  released: number;
  status: GatewayReserveBlockStatus;
  expire_at: number;
  receipt: string;
  created_at: number;
}

export interface DebitGatewayReserveBlockInput {
  amount: number;
  receipt: string;
}

// ---- Webhooks -------------------------------------------------------------------------------

export type GatewayWebhookEventName =
  | 'payment.authorized'
  | 'payment.captured'
  | 'payment.failed'
  | 'order.paid'
  | 'refund.created'
  | 'refund.processed'
  | 'refund.failed'
  | 'token.confirmed'
  | 'token.rejected'
  | 'token.cancelled'
  | 'payment_link.paid'
  | 'payment_link.cancelled'
  | 'settlement.processed'
  | 'reserve_pay.block.active'
  | 'reserve_pay.block.released';

/** Body of an outbound webhook; verify `X-Gateway-Signature` over the raw bytes before parsing. */
export interface GatewayWebhookEvent {
  entity: 'event';
  account_id: string;
  event: GatewayWebhookEventName;
  /** Keys present in `payload`, e.g. `["payment", "order"]`. */
  contains: string[];
  payload: {
    payment?: { entity: GatewayPayment };
    order?: { entity: GatewayOrder };
    refund?: { entity: GatewayRefund };
    token?: { entity: GatewayToken };
    payment_link?: { entity: GatewayPaymentLink };
    settlement?: { entity: GatewaySettlement };
    reserve_pay_block?: { entity: GatewayReserveBlock };
  };
  created_at: number;
}
