import { AppError, commonErrors } from '../common/errors/app-error';

/** Mandate codes for /v1 and the app pages. delegate_payment has its own (delegate-payment.errors.ts). */
export const mandateErrors = {
  notFound: (id: string) => commonErrors.notFound('mandate', id),
  buyerAgentRequired: () =>
    commonErrors.missing(
      '$.buyer_agent_id',
      'An API key must name the buyer agent the mandate is for: send buyer_agent_id',
    ),
  buyerAgentNotFound: (id: string) =>
    new AppError(
      404,
      'invalid_request',
      'not_found',
      `No agent ${id} in this workspace`,
      '$.buyer_agent_id',
    ),
  notABuyer: (id: string, role: string) =>
    commonErrors.invalid(
      '$.buyer_agent_id',
      `A mandate is held by a buyer agent; ${id} is a ${role}`,
    ),
  agentIsNotBuyer: (role: string) =>
    commonErrors.forbidden(`Only a buyer agent can hold a mandate; this agent is a ${role}`),
  agentNotSelf: () =>
    commonErrors.forbidden(
      'An agent credential can create mandates only for its own agent; omit buyer_agent_id',
    ),
  payeeNotSeller: (index: number, id: string) =>
    commonErrors.invalid(`$.payee_agent_ids[${index}]`, `${id} is not a seller agent`),
  recurringRail: () =>
    commonErrors.invalid(
      '$.rail',
      'A recurring mandate is UPI AutoPay: omit rail or send upi_autopay',
    ),
  standingRail: () =>
    commonErrors.invalid(
      '$.rail',
      'A standing mandate needs rail upi_reserve_pay or upi_otm (upi_autopay is for kind recurring)',
    ),
  recurringNeedsPayees: () =>
    commonErrors.invalid(
      '$.payee_agent_ids',
      'A recurring mandate names the sellers that may charge it: send payee_agent_ids',
    ),
  cycleWithoutRecurring: () =>
    commonErrors.invalid('$.recurring', 'recurring is only for a mandate of kind recurring'),
  invalidWindow: (param: string, message: string) => commonErrors.invalid(param, message),
  notPending: (id: string, status: string) =>
    new AppError(
      400,
      'invalid_request',
      'mandate_not_pending',
      `Mandate ${id} is ${status}; only a mandate awaiting authorisation can be authorised or declined`,
    ),
  maximumOnlyRecurring: () =>
    commonErrors.invalid(
      '$.max_per_debit',
      'Only a recurring mandate has a maximum per debit the person sets',
    ),
  maximumOutOfRange: (proposalPaise: number) =>
    new AppError(
      400,
      'invalid_request',
      'max_per_debit_out_of_range',
      `The maximum per debit must be at least ₹1 and at most the ${proposalPaise} paise the agent proposed`,
      '$.max_per_debit',
    ),
  expired: (id: string) =>
    new AppError(
      400,
      'invalid_request',
      'mandate_expired',
      `Mandate ${id} is past its validity and can no longer be authorised`,
    ),
};
