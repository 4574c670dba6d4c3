import type { AppError } from '../common/errors/app-error';
import { formatRupees } from '../common/money';
import type { RefundLimits } from '../rails/payment-rail';
import { refundErrors } from './refunds.errors';

/**
 * Refund limits (docs/gateway.md "Refund limits"): pure rules over what a rail refunds (PaymentRail's
 * refundLimits) and what is left of a payment (amount paid less every refund succeeded,
 * processing or waiting for approval). RefundsService refuses a request outside them before
 * anything is stored or a person is asked; the intent shows what can still be refunded and why not.
 */

export interface RailRefundLimits extends RefundLimits {
  rail: 'sandbox' | 'gateway';
}

/** What can still be refunded on a payment on this rail, and why not when nothing can. */
export interface Refundability {
  /** Paise left of a settled payment: paid less refunds succeeded, processing or awaiting approval. */
  leftPaise: number;
  /** Paise a refund may still ask (the whole remainder, possibly in parts); 0 when none. */
  refundablePaise: number;
  /** The rail's smallest refund, in paise. */
  minimumPaise: number;
  /** The rail's largest single refund, in paise; null: none beyond what is left. */
  maximumPaise: number | null;
  /** Why refundablePaise is 0, in a sentence for people; null when something is refundable. */
  notRefundableReason: string | null;
}

export interface RefundablePayment {
  status: string;
  amountPaise: number;
  /** Paise refunded, being paid out or waiting for approval. */
  committedPaise: number;
}

const railLabel = (rail: RailRefundLimits['rail']): string =>
  rail === 'gateway' ? 'the payment gateway' : 'the sandbox rail';

/** Whether (and how much of) a payment can still be refunded on this rail. */
export function refundabilityOf(limits: RailRefundLimits, p: RefundablePayment): Refundability {
  const left = p.status === 'settled' ? Math.max(0, p.amountPaise - p.committedPaise) : 0;
  const base = {
    leftPaise: left,
    minimumPaise: limits.minimumPaise,
    maximumPaise: limits.maximumPaise,
  };
  const none = (reason: string): Refundability => ({
    ...base,
    refundablePaise: 0,
    notRefundableReason: reason,
  });
  if (p.status !== 'settled') {
    return none(`Only settled payments can be refunded; this one is ${p.status}.`);
  }
  if (left === 0) {
    return none(
      `Nothing is left to refund: all ${formatRupees(p.amountPaise)} has been refunded or is waiting for approval.`,
    );
  }
  if (!limits.partialAllowed && p.committedPaise > 0) {
    return none(`On ${railLabel(limits.rail)} a payment is refunded only in full, at once.`);
  }
  if (left < limits.minimumPaise) {
    return none(belowMinimumOfRemainder(limits, left));
  }
  return { ...base, refundablePaise: left, notRefundableReason: null };
}

/**
 * The refusal of a refund of `amountPaise` out of `leftPaise`, or null when the rail takes it.
 * `defaulted`: the caller asked no amount (a refund of everything left).
 */
export function refundRefusal(
  limits: RailRefundLimits,
  p: { amountPaise: number; leftPaise: number; requestedPaise: number; defaulted: boolean },
): AppError | null {
  const { leftPaise: left, requestedPaise: asked } = p;
  if (left <= 0 || asked > left) {
    return refundErrors.exceedsAmount(left);
  }
  if (asked < limits.minimumPaise) {
    return refundErrors.belowMinimum(
      p.defaulted
        ? belowMinimumOfRemainder(limits, left)
        : `A refund on ${railLabel(limits.rail)} is at least ${formatRupees(limits.minimumPaise)}; ${formatRupees(asked)} is less.`,
    );
  }
  if (limits.maximumPaise !== null && asked > limits.maximumPaise) {
    return refundErrors.aboveMaximum(
      `A refund on ${railLabel(limits.rail)} is at most ${formatRupees(limits.maximumPaise)}; ask ${formatRupees(asked)} in several refunds.`,
    );
  }
  if (!limits.partialAllowed && (asked !== p.amountPaise || left !== p.amountPaise)) {
    return refundErrors.partialNotAllowed(
      `On ${railLabel(limits.rail)} a payment is refunded only in full: ${formatRupees(p.amountPaise)} at once.`,
    );
  }
  return null;
}

function belowMinimumOfRemainder(limits: RailRefundLimits, left: number): string {
  return `The ${formatRupees(left)} left of this payment is less than the smallest refund ${railLabel(limits.rail)} makes (${formatRupees(limits.minimumPaise)}), so it cannot be refunded on this rail.`;
}
