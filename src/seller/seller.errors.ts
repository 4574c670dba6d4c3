import { AppError } from '../common/errors/app-error';
import { RequestValidationError } from '../common/errors/validation';

export const sellerErrors = {
  agentNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'not_found', `No agent ${id}`),
  notYourListing: () =>
    new AppError(403, 'invalid_request', 'forbidden', 'An agent can publish only its own listing'),
  notASeller: () =>
    new AppError(
      403,
      'invalid_request',
      'not_a_seller',
      'Only an agent with role seller or both can publish a listing',
    ),
  /** A body problem the DTO cannot see (needs the whole array); treated like any validation failure. */
  duplicateSku: (index: number, sku: string) =>
    new RequestValidationError(
      400,
      'invalid_request',
      'invalid',
      `$.offers[${index}].sku: SKU ${sku} appears more than once`,
      `$.offers[${index}].sku`,
    ),
};
