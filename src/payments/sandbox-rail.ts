import { Injectable } from '@nestjs/common';

import { randomToken } from '../common/ids';
import {
  PaymentRail,
  RailCreditRequest,
  RailDebitRequest,
  RailFailureCode,
  RailResult,
} from './payment-rail';

/**
 * A fake UPI rail. Like test card numbers, the last two digits of the amount in paise pick the
 * outcome, so any flow can be driven to a failure deterministically:
 *   …51 paise → insufficient_funds, …52 → mandate_declined_by_bank, …53 → bank_unavailable,
 *   anything else succeeds. (₹10.51 = 1051 paise fails with insufficient_funds.)
 * Credits (refunds) always succeed. No money moves.
 */
export const SANDBOX_TRIGGERS: Record<number, { code: RailFailureCode; message: string }> = {
  51: { code: 'insufficient_funds', message: 'The payer bank reported insufficient funds' },
  52: { code: 'mandate_declined_by_bank', message: 'The payer bank declined the mandate debit' },
  53: { code: 'bank_unavailable', message: 'The payer bank did not respond' },
};

@Injectable()
export class SandboxRail implements PaymentRail {
  readonly name = 'sandbox' as const;

  debit(req: RailDebitRequest): Promise<RailResult> {
    const reference = `SBX${randomToken(12).toUpperCase()}`;
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

  credit(_req: RailCreditRequest): Promise<RailResult> {
    return Promise.resolve({
      status: 'succeeded',
      reference: `SBXR${randomToken(11).toUpperCase()}`,
    });
  }
}
