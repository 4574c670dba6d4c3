import { createHash } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import {
  PaymentRail,
  RailCreditRequest,
  RailDebitRequest,
  RailFailureCode,
  RailResult,
  RailStatus,
  RefundLimits,
} from './payment-rail';

/**
 * A fake UPI rail. Like test card numbers, the last two digits of the amount in paise pick the
 * outcome, so any flow can be driven to a failure deterministically:
 *   …51 paise → insufficient_funds, …52 → mandate_declined_by_bank, …53 → bank_unavailable,
 *   anything else succeeds. (₹10.51 = 1051 paise fails with insufficient_funds.)
 * Credits (refunds) of any whole number of paise always succeed. No money moves.
 *
 * The answer is a function of the intent (or refund) alone, reference included, so asking again
 * (the reconciler, after a crash between the rail call and the settlement) gets the same answer:
 * the sandbox bank always remembers what it did.
 */
export const SANDBOX_TRIGGERS: Record<number, { code: RailFailureCode; message: string }> = {
  51: { code: 'insufficient_funds', message: 'The payer bank reported insufficient funds' },
  52: { code: 'mandate_declined_by_bank', message: 'The payer bank declined the mandate debit' },
  53: { code: 'bank_unavailable', message: 'The payer bank did not respond' },
};

/** A stable reference for an id: prefix + 12 (debits) or 11 (credits) upper-case hex characters. */
function referenceOf(prefix: string, id: string, length: number): string {
  return `${prefix}${createHash('sha256').update(id).digest('hex').slice(0, length).toUpperCase()}`;
}

@Injectable()
export class SandboxRail implements PaymentRail {
  readonly name = 'sandbox' as const;
  /** The sandbox credits any whole number of paise, in as many parts as asked. */
  readonly refundLimits: RefundLimits = {
    minimumPaise: 1,
    maximumPaise: null,
    partialAllowed: true,
  };

  debit(req: RailDebitRequest): Promise<RailResult> {
    const reference = referenceOf('SBX', req.intentId, 12);
    const trigger = SANDBOX_TRIGGERS[req.amountPaise % 100];
    if (trigger) {
      return Promise.resolve({
        status: 'failed',
        reference,
        failureCode: trigger.code,
        message: trigger.message,
      });
    }
    return Promise.resolve({ status: 'succeeded', reference });
  }

  debitStatus(req: RailDebitRequest): Promise<RailStatus> {
    return this.debit(req);
  }

  credit(req: RailCreditRequest): Promise<RailResult> {
    return Promise.resolve({
      status: 'succeeded',
      reference: referenceOf('SBXR', req.refundId, 11),
    });
  }

  creditStatus(req: RailCreditRequest): Promise<RailStatus> {
    return this.credit(req);
  }
}
