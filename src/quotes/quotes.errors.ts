import { AppError } from '../common/errors/app-error';
import type { NotPayableCode } from './quote.state';

/** Quote codes (docs/security.md "Errors"). A quote of someone else is 404, never 403. */
export const quoteErrors = {
  notFound: (id: string) =>
    new AppError(404, 'invalid_request', 'quote_not_found', `No quote ${id}`),
  sellerNotFound: (agentId: string) =>
    new AppError(404, 'invalid_request', 'seller_not_found', `No listed seller ${agentId}`),
  offerNotFound: (sku: string) =>
    new AppError(
      400,
      'invalid_request',
      'offer_not_found',
      `The seller publishes no offer with sku "${sku}"`,
      '$.sku',
    ),
  buyerNotFound: (agentId: string) =>
    new AppError(
      400,
      'invalid_request',
      'buyer_not_found',
      `No buyer agent ${agentId}`,
      '$.buyer_agent_id',
    ),
  buyerIsSeller: (param: string) =>
    new AppError(
      400,
      'invalid_request',
      'buyer_is_seller',
      'An agent cannot quote to itself',
      param,
    ),
  amountTooLarge: () =>
    new AppError(
      400,
      'invalid_request',
      'amount_too_large',
      'The quote total exceeds the largest amount the service handles',
      '$.items',
    ),
  wrongRole: (needed: 'buyer' | 'seller') =>
    new AppError(
      403,
      'invalid_request',
      'wrong_agent_role',
      `This route takes the credential of a ${needed} agent (role ${needed} or both)`,
    ),
  notPayable: (code: NotPayableCode, reason: string) =>
    new AppError(409, 'invalid_request', code, reason),
  mandateNotFound: (id: string) =>
    new AppError(
      404,
      'invalid_request',
      'mandate_not_found',
      `No mandate ${id} for this buyer agent`,
      '$.mandate_id',
    ),
};
