import { AppError } from '../common/errors/app-error';

/**
 * Public pay codes. The 404s never echo the id and are the same for an unknown id, a malformed
 * one and someone else's checkout, so the answers tell nothing about which ids exist.
 */
export const publicPayErrors = {
  quoteNotFound: () =>
    new AppError(404, 'invalid_request', 'quote_not_found', 'No quote with this id'),
  checkoutNotFound: () =>
    new AppError(
      404,
      'invalid_request',
      'checkout_not_found',
      'No checkout with this id for this quote',
    ),
  /** The quote cannot be paid now (expired, paid, canceled, pending a decision, or the buyer's rules refuse). */
  notPayable: (code: string, reason: string) => new AppError(409, 'invalid_request', code, reason),
  checkoutAlreadyPaid: () =>
    new AppError(
      409,
      'invalid_request',
      'checkout_already_paid',
      'This checkout is already paid; it cannot change.',
    ),
  checkoutClosed: (status: 'failed' | 'expired', reason: string) =>
    new AppError(409, 'invalid_request', `checkout_${status}`, reason),
  checkoutInProgress: () =>
    new AppError(
      409,
      'invalid_request',
      'checkout_in_progress',
      'A payment for this checkout is in progress; check its status.',
      undefined,
      {
        retryAfterSeconds: 2,
      },
    ),
};
