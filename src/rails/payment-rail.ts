/**
 * The rail port (docs/architecture.md "Payment pipeline"). Bound by configuration (RAIL) in
 * RailsModule: the sandbox rail (src/rails/sandbox-rail.ts) or the gateway adapter
 * (src/rails/gateway/gateway-rail.ts). The pipeline never calls a rail inside a database transaction:
 * the intent (or refund) is committed `processing` first, the rail is called, and a second short
 * transaction records the result.
 *
 * Every call is safe to repeat: a debit charges at most once per intent and a credit pays out at
 * most once per refund (the gateway deduplicates on an idempotency key derived from our id and
 * finds its order again by receipt = intent id). A call that gets no definite answer (timeout,
 * network error, 5xx, or the gateway still working on it) answers `pending`: the intent stays
 * `processing` and the reconciler asks again later with debitStatus / creditStatus. Never a guess.
 */
/**
 * What a payment is for (the intent's `source_kind`): a checkout session, a quote, a hosted
 * checkout or a recurring charge. Defined here, below the pipeline, which uses it as its own.
 */
export type PaymentSourceKind = 'checkout' | 'quote' | 'hosted' | 'recurring';

export interface RailDebitRequest {
  intentId: string;
  amountPaise: number;
  mandateId: string | null;
  /**
   * Where the payment comes from. A hosted-page payment (kind 'hosted', no mandate) is not debited
   * by the service on the gateway: the person pays in the gateway's widget, and the debit confirms
   * what the gateway captured for that checkout's order.
   */
  source: { kind: PaymentSourceKind; id: string };
  description: string;
}

export interface RailCreditRequest {
  intentId: string;
  refundId: string;
  amountPaise: number;
  /** The debit's rail reference (on the gateway: the payment id the refund is made against). */
  debitReference: string | null;
}

/** The gateway's ids behind a result, recorded on the rail transfer (null on the sandbox). */
export interface RailIds {
  orderId?: string | null;
  paymentId?: string | null;
  refundId?: string | null;
}

export type RailResult =
  | { status: 'succeeded'; reference: string; ids?: RailIds }
  | {
      status: 'failed';
      reference: string;
      failureCode: RailFailureCode;
      message: string;
      ids?: RailIds;
    }
  | { status: 'pending'; reference: string | null; message: string; ids?: RailIds };

/** What a status query may also answer: the rail has never heard of this debit or credit. */
export type RailStatus = RailResult | { status: 'unknown' };

export type RailFailureCode =
  | 'insufficient_funds'
  | 'mandate_declined_by_bank'
  | 'bank_unavailable'
  /** The gateway refused the payment for another reason (error_code in the message). */
  | 'payment_failed'
  /** The mandate has no confirmed recurring token (or approved Reserve Pay block) at the gateway yet. */
  | 'mandate_not_registered'
  /** Reserve Pay: the payment is more than what is left of the mandate's block. */
  | 'block_exhausted'
  /** The gateway refused the request itself (4xx): a bug or a configuration problem, not the bank. */
  | 'gateway_refused';

/**
 * What a rail refunds (docs/gateway.md "Refund limits"), stated up front so a request outside it is refused
 * when it is asked (RefundsService), never after a person approved it. Besides these, a refund is
 * never more than what is left of the payment: the amount paid less every refund succeeded,
 * processing or waiting for approval.
 */
export interface RefundLimits {
  /** The smallest refund the rail pays out, in paise; a remainder below it cannot be refunded. */
  minimumPaise: number;
  /** The largest single refund the rail pays out, in paise; null: no limit but what is left. */
  maximumPaise: number | null;
  /** Whether a payment may be refunded in parts; false: only the whole amount, at once. */
  partialAllowed: boolean;
}

export interface PaymentRail {
  readonly name: 'sandbox' | 'gateway';
  /** What this rail refunds; checked before a refund is stored or a person is asked. */
  readonly refundLimits: RefundLimits;
  /** Charges the intent once; repeating it never charges twice. */
  debit(req: RailDebitRequest): Promise<RailResult>;
  /** What the rail knows of this intent's debit, without charging anything. */
  debitStatus(req: RailDebitRequest): Promise<RailStatus>;
  /** Pays the refund out once; repeating it never pays twice. */
  credit(req: RailCreditRequest): Promise<RailResult>;
  /** What the rail knows of this refund, without paying anything. */
  creditStatus(req: RailCreditRequest): Promise<RailStatus>;
  /**
   * Called once a person authorised a mandate, with no transaction open: the gateway registers it
   * at once (an AutoPay token, or a Reserve Pay block) so the person's approval at the gateway can
   * come before the first debit. Idempotent; the first debit registers it if this did not.
   */
  prepareMandate?(mandateId: string): Promise<void>;
  /**
   * Called once a mandate was revoked, with no transaction open: the gateway cancels its AutoPay
   * token (a Reserve Pay block is released by its sweep). Idempotent.
   */
  endMandate?(mandateId: string): Promise<void>;
}

export const PAYMENT_RAIL = Symbol('PAYMENT_RAIL');
