import { AppError, commonErrors } from '../common/errors/app-error';
import { formatIst } from '../web/local-time';

/** Codes of /v1/pay/mandates/{id}/charges (docs/recurring.md "Recurring payments (UPI AutoPay)"). */
export const recurringErrors = {
  mandateNotFound: (id: string) => commonErrors.notFound('mandate', id),
  chargeNotFound: (id: string) => commonErrors.notFound('charge', id),
  notASeller: () =>
    commonErrors.forbidden('Only a seller agent can schedule a charge on a recurring mandate'),
  notRecurring: (id: string) =>
    new AppError(
      400,
      'invalid_request',
      'mandate_not_recurring',
      `Mandate ${id} is not a recurring (AutoPay) mandate; charges are scheduled only on those`,
    ),
  sellerNotOnMandate: (id: string) =>
    commonErrors.forbidden(`This seller is not on the payee list of mandate ${id}`),
  mandateNotActive: (id: string, status: string) =>
    new AppError(
      409,
      'invalid_request',
      'mandate_not_active',
      `Mandate ${id} is ${status}; a charge needs an active mandate`,
    ),
  aboveCap: (cap: number) =>
    new AppError(
      400,
      'invalid_request',
      'mandate_cap_exceeded',
      `amount_paise is above the mandate's maximum per debit of ${cap} paise (the most the person authorised); nothing was scheduled and no notice went out`,
      '$.amount_paise',
    ),
  endsBeforeDebit: (debitAt: Date, validUntil: Date) =>
    new AppError(
      409,
      'invalid_request',
      'mandate_ends_before_debit',
      `The earliest debit (${formatIst(debitAt)}) is not before the mandate ends (${formatIst(validUntil)})`,
    ),
  notStarted: (validFrom: Date) =>
    new AppError(
      409,
      'invalid_request',
      'mandate_not_started',
      `The debit would fall before the mandate starts (${formatIst(validFrom)}); send a later debit_after`,
      '$.debit_after',
    ),
  cycleTaken: (holder: string | null) =>
    new AppError(
      409,
      'invalid_request',
      'cycle_already_charged',
      `This billing cycle of the mandate already has a charge${holder ? ` (${holder})` : ''}: at most one debit per cycle`,
    ),
  notCancellable: (id: string, status: string) =>
    new AppError(
      409,
      'invalid_request',
      'charge_not_cancellable',
      `Charge ${id} is ${status}; only a charge not yet debited can be cancelled`,
    ),
  optOutBuyerOnly: () =>
    commonErrors.forbidden(
      "Only the buyer's side (the person, through their agent or API key) can opt out of a debit; a seller cancels it",
    ),
  debitAfterTooLate: () =>
    commonErrors.invalid('$.debit_after', 'debit_after can be at most one year from now'),
};
