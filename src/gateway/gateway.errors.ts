import { AppError } from '../common/errors/app-error';

/** Codes of the gateway routes (inbound webhooks, the hosted page's gateway completion). */
export const gatewayErrors = {
  notConfigured: () =>
    new AppError(
      404,
      'invalid_request',
      'gateway_not_configured',
      'This service does not use the payment gateway (RAIL is not gateway)',
    ),
  invalidWebhookSignature: () =>
    new AppError(
      401,
      'invalid_request',
      'invalid_signature',
      'X-Gateway-Signature does not match the body',
      'X-Gateway-Signature',
    ),
  missingEventId: () =>
    new AppError(
      400,
      'invalid_request',
      'invalid',
      'X-Gateway-Event-Id is required: 1-128 printable ASCII characters (space to ~, not starting or ending with a space)',
      'X-Gateway-Event-Id',
    ),
  /** The payment signature is not the gateway's for this checkout's order (forged, or another order). */
  invalidPaymentSignature: () =>
    new AppError(
      400,
      'invalid_request',
      'invalid_payment_signature',
      'The payment signature does not verify for this checkout',
      '$.gateway_signature',
    ),
  /** The gateway does not show this payment captured for this checkout's order and amount. */
  paymentNotCaptured: (why: string) =>
    new AppError(409, 'invalid_request', 'payment_not_captured', why),
  unavailable: () =>
    new AppError(
      503,
      'service_unavailable',
      'gateway_unavailable',
      'The payment gateway did not answer; try again shortly',
      undefined,
      { retryAfterSeconds: 3 },
    ),
};
