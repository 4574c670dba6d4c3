import { AppError } from '../common/errors/app-error';

export const paymentErrors = {
  intentNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'not_found', `No payment intent ${id}`),
  /**
   * pay()'s lifecycle gate (docs/architecture.md "Party lifecycle"): the seller's agent or
   * workspace is not active. Thrown, so the caller's transaction rolls back and nothing moves.
   */
  sellerUnavailable: (reason: string) =>
    new AppError(409, 'invalid_request', 'seller_unavailable', reason),
  /** The same gate for the buyer's side. */
  buyerUnavailable: (reason: string) =>
    new AppError(409, 'invalid_request', 'buyer_unavailable', reason),
};

/** The codes pay()'s lifecycle gate refuses with (paymentErrors.sellerUnavailable/buyerUnavailable). */
export const PARTY_UNAVAILABLE_CODES: readonly string[] = [
  'seller_unavailable',
  'buyer_unavailable',
];

/** True for the lifecycle gate's refusal: a background caller ends its charge declined with it. */
export function isPartyUnavailable(err: unknown): err is AppError {
  return err instanceof AppError && PARTY_UNAVAILABLE_CODES.includes(err.code);
}
