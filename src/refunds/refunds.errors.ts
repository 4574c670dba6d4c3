import { AppError } from '../common/errors/app-error';
import { formatRupees } from '../common/money';

/** Refund codes (docs/security.md "Errors"). */
export const refundErrors = {
  intentNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'intent_not_found', `No payment intent ${id}`),
  refundNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'refund_not_found', `No refund ${id}`),
  onlySeller: () =>
    new AppError(
      403,
      'invalid_request',
      'forbidden',
      'Only the seller agent of this payment can ask a refund',
    ),
  notRefundable: (status: string) =>
    new AppError(
      409,
      'invalid_request',
      'intent_not_refundable',
      `Only settled payments can be refunded; this one is ${status}`,
    ),
  exceedsAmount: (remainingPaise: number) =>
    new AppError(
      400,
      'invalid_request',
      'refund_exceeds_amount',
      remainingPaise > 0
        ? `At most ${formatRupees(remainingPaise)} (${remainingPaise} paise) of this payment is left to refund (pending refunds count)`
        : 'Nothing is left to refund on this payment (pending refunds count)',
      '$.amount_paise',
    ),
  /** Below the rail's smallest refund (refund-limits.ts words the message, in rupees). */
  belowMinimum: (message: string) =>
    new AppError(400, 'invalid_request', 'refund_below_minimum', message, '$.amount_paise'),
  /** Above the rail's largest single refund. */
  aboveMaximum: (message: string) =>
    new AppError(400, 'invalid_request', 'refund_above_maximum', message, '$.amount_paise'),
  /** The rail refunds only whole payments. */
  partialNotAllowed: (message: string) =>
    new AppError(400, 'invalid_request', 'partial_refund_not_allowed', message, '$.amount_paise'),
};
