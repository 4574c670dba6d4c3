import { AppError } from '../common/errors/app-error';

/** Refund codes (README "Errors"). */
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
        ? `At most ${remainingPaise} paise of this payment is left to refund (pending refunds count)`
        : 'Nothing is left to refund on this payment (pending refunds count)',
      '$.amount_paise',
    ),
};
