/**
 * The rail port. Today the sandbox rail; a gateway adapter (orders, UPI mandates, refunds) plugs
 * in here behind the same interface, chosen by configuration (README "Planned: gateway").
 */
export interface RailDebitRequest {
  intentId: string;
  amountPaise: number;
  mandateId: string | null;
}

export interface RailCreditRequest {
  intentId: string;
  refundId: string;
  amountPaise: number;
}

export type RailResult =
  | { status: 'succeeded'; reference: string }
  | { status: 'failed'; reference: string; failureCode: RailFailureCode; message: string };

export type RailFailureCode =
  'insufficient_funds' | 'mandate_declined_by_bank' | 'bank_unavailable';

export interface PaymentRail {
  readonly name: 'sandbox' | 'gateway';
  debit(req: RailDebitRequest): Promise<RailResult>;
  credit(req: RailCreditRequest): Promise<RailResult>;
}

export const PAYMENT_RAIL = Symbol('PAYMENT_RAIL');
