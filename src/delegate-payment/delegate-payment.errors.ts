import { AppError } from '../common/errors/app-error';

/**
 * delegate_payment refusals (docs/acp.md §6). `invalid_card` is the only validation code in the
 * official closed enum; invalid_allowance, mandate_not_found and mandate_cap_exceeded are our
 * documented deviation codes (docs/acp.md "Deviations"). All are 400: agents read 409 as "retry"
 * and 422 as an idempotency conflict (docs/acp.md §7). Messages never echo card data.
 */
export const delegatePaymentErrors = {
  cardRefused: () =>
    new AppError(
      400,
      'invalid_request',
      'invalid_card',
      'Cards are not accepted. Send payment_method {"type": "svc_mandate", "mandate_id": "mdt_…"} (mandate_id optional)',
      '$.payment_method.type',
    ),
  unsupportedMethod: () =>
    new AppError(
      400,
      'invalid_request',
      'invalid_card',
      'Only payment_method.type "svc_mandate" is accepted (a UPI mandate authorised in the app)',
      '$.payment_method.type',
    ),
  invalidAllowance: (param: string, message: string) =>
    new AppError(400, 'invalid_request', 'invalid_allowance', message, param),
  mandateNotFound: (id: string) =>
    new AppError(
      400,
      'invalid_request',
      'mandate_not_found',
      `No mandate ${id} for this buyer agent`,
      '$.payment_method.mandate_id',
    ),
  mandateCapExceeded: (maxAmount: number, capPaise: number) =>
    new AppError(
      400,
      'invalid_request',
      'mandate_cap_exceeded',
      `max_amount ${maxAmount} paise is above the mandate's per-payment cap of ${capPaise} paise`,
      '$.allowance.max_amount',
    ),
};
