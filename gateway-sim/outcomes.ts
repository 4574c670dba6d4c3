import { SimErrorCode } from './errors';

/**
 * What happens to a payment attempt (docs/gateway-simulator.md "Outcomes"). In order:
 *   1. the payer pressed Fail (widget, link page) → failed (decided by the caller, see
 *      payments.ts AttemptOptions.outcome; a person's answer on a mandate likewise);
 *   2. the next queued control outcome (`POST /__sim/next`), consumed by this attempt;
 *   3. the payer's VPA: failure@gateway fails, hang@gateway hangs (success@gateway, like any
 *      other VPA, goes on to the next rule);
 *   4. the amount's last two digits in paise: …51 insufficient funds, …52 declined by the bank,
 *      …53 bank unavailable (as the service's sandbox rail);
 *   5. otherwise success.
 */
export type FailureReason =
  | 'insufficient_funds'
  | 'payment_declined'
  | 'bank_unavailable'
  | 'payment_failed'
  | 'mandate_rejected';

export interface Failure {
  code: SimErrorCode;
  reason: FailureReason;
  description: string;
}

export const FAILURES: Record<FailureReason, Failure> = {
  insufficient_funds: {
    code: 'BAD_REQUEST_ERROR',
    reason: 'insufficient_funds',
    description: "Payment failed because of insufficient balance in the payer's account",
  },
  payment_declined: {
    code: 'BAD_REQUEST_ERROR',
    reason: 'payment_declined',
    description: "The payer's bank declined the payment",
  },
  bank_unavailable: {
    code: 'GATEWAY_ERROR',
    reason: 'bank_unavailable',
    description: "The payer's bank did not respond",
  },
  payment_failed: {
    code: 'BAD_REQUEST_ERROR',
    reason: 'payment_failed',
    description: 'The payer did not complete the payment',
  },
  mandate_rejected: {
    code: 'BAD_REQUEST_ERROR',
    reason: 'mandate_rejected',
    description: 'The payer rejected the mandate',
  },
};

export const AMOUNT_TRIGGERS: Record<number, FailureReason> = {
  51: 'insufficient_funds',
  52: 'payment_declined',
  53: 'bank_unavailable',
};

export const SIM_VPAS = {
  success: 'success@gateway',
  failure: 'failure@gateway',
  hang: 'hang@gateway',
} as const;

export type NextOutcome = 'succeed' | 'fail' | 'hang';

export type Decision =
  | { kind: 'succeed'; respondDelayMs: number }
  | { kind: 'fail'; failure: Failure; respondDelayMs: number }
  | { kind: 'hang'; respondDelayMs: number };

interface Hung {
  resolve(outcome: 'succeed' | 'fail'): void;
}

export class OutcomeControl {
  private readonly queue: { outcome: NextOutcome; respondDelayMs: number }[] = [];
  private hung: Hung[] = [];

  /** Queue an outcome for the next payment attempt (several calls queue several, first in first out). */
  pushNext(outcome: NextOutcome, respondDelayMs = 0): number {
    this.queue.push({ outcome, respondDelayMs });
    return this.queue.length;
  }

  queued(): { outcome: NextOutcome; respond_delay_ms: number }[] {
    return this.queue.map((q) => ({ outcome: q.outcome, respond_delay_ms: q.respondDelayMs }));
  }

  decide(input: { amount: number; vpa: string | null }): Decision {
    const next = this.queue.shift();
    if (next) {
      switch (next.outcome) {
        case 'succeed':
          return { kind: 'succeed', respondDelayMs: next.respondDelayMs };
        case 'fail':
          return {
            kind: 'fail',
            failure: FAILURES.payment_failed,
            respondDelayMs: next.respondDelayMs,
          };
        case 'hang':
          return { kind: 'hang', respondDelayMs: next.respondDelayMs };
      }
    }
    // success@gateway is the ordinary payer: the amount triggers below still apply to it.
    if (input.vpa === SIM_VPAS.failure) {
      return { kind: 'fail', failure: FAILURES.payment_failed, respondDelayMs: 0 };
    }
    if (input.vpa === SIM_VPAS.hang) {
      return { kind: 'hang', respondDelayMs: 0 };
    }
    const trigger = AMOUNT_TRIGGERS[input.amount % 100];
    if (trigger) {
      return { kind: 'fail', failure: FAILURES[trigger], respondDelayMs: 0 };
    }
    return { kind: 'succeed', respondDelayMs: 0 };
  }

  /** A hung attempt waits here until `release()`; it then ends as the release says. */
  waitForRelease(): Promise<'succeed' | 'fail'> {
    return new Promise((resolve) => this.hung.push({ resolve }));
  }

  hangingCount(): number {
    return this.hung.length;
  }

  /** Lets every hung attempt go on; returns how many there were. */
  release(outcome: 'succeed' | 'fail' = 'succeed'): number {
    const hung = this.hung;
    this.hung = [];
    for (const h of hung) {
      h.resolve(outcome);
    }
    return hung.length;
  }

  reset(): void {
    this.queue.length = 0;
    this.release('fail');
  }
}
