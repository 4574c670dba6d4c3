import { AppError, commonErrors } from '../common/errors/app-error';

/** Codes of /v1/pay/mandates/{id}/amendments and the person's amendment page. */
export const amendmentErrors = {
  notFound: (id: string) => commonErrors.notFound('amendment', id),
  notBuyerAgent: () =>
    commonErrors.forbidden(
      "Only the mandate's buyer agent (its own credential) can ask to amend a mandate",
    ),
  notAmendable: (id: string) =>
    new AppError(
      409,
      'invalid_request',
      'mandate_not_amendable',
      `Mandate ${id} is a one-time mandate, scoped to one payment; it cannot be amended`,
    ),
  mandateNotActive: (id: string, status: string) =>
    new AppError(
      409,
      'invalid_request',
      'mandate_not_active',
      `Mandate ${id} is ${status}; only an active mandate can be amended`,
    ),
  nothingChanges: () =>
    new AppError(
      400,
      'invalid_request',
      'amendment_changes_nothing',
      'Send at least one of per_payment_cap_paise, valid_until, payee_agent_ids with a value different from the mandate’s',
    ),
  invalid: (param: string, message: string) => commonErrors.invalid(param, message),
  pendingExists: (pendingId: string | null) =>
    new AppError(
      409,
      'invalid_request',
      'amendment_pending',
      `The mandate already has an amendment waiting for the person${pendingId ? ` (${pendingId})` : ''}; one at a time`,
    ),
  needsNewRegistration: () =>
    new AppError(
      409,
      'invalid_request',
      'amendment_needs_new_registration',
      'This mandate pays on an AutoPay token registered at the gateway with its cap and end: a higher cap or a later valid_until cannot be applied to that token. Lower the cap, end it earlier or change the sellers, or create a new mandate',
    ),
  registrationPending: (mandateId: string, retryAfterSeconds: number) =>
    new AppError(
      409,
      'invalid_request',
      'mandate_registration_pending',
      `Mandate ${mandateId} is still being registered at the payment gateway with its current cap and end; its cap and valid_until cannot change until that finishes. Nothing changed: retry after Retry-After seconds`,
      undefined,
      { retryAfterSeconds },
    ),
  notPending: (id: string, status: string) =>
    new AppError(
      409,
      'invalid_request',
      'amendment_not_pending',
      `Amendment ${id} is ${status}; only a pending amendment can be authorised or declined`,
    ),
  expired: (id: string) =>
    new AppError(
      409,
      'invalid_request',
      'amendment_expired',
      `Amendment ${id} was not answered in time; the mandate keeps its terms`,
    ),
};
