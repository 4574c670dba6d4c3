import { AppError } from '../common/errors/app-error';
import { RequestValidationError } from '../common/errors/validation';
import type { CheckoutStatus } from './checkout-session.entity';

/** Checkout codes (docs/acp.md §7). Body-shape failures are RequestValidationErrors, like the pipe's. */
export const checkoutErrors = {
  notFound: (id: string) =>
    new AppError(404, 'invalid_request', 'not_found', `No checkout session ${id}`),
  unknownItem: (index: number, id: string) =>
    new AppError(
      400,
      'invalid_request',
      'invalid_item_id',
      `The seller publishes no offer with SKU ${id}`,
      `$.line_items[${index}].id`,
    ),
  /** Update or complete in a state that does not allow it (400, docs/acp.md §4). */
  invalidState: (id: string, status: CheckoutStatus, action: string) =>
    new AppError(
      400,
      'invalid_request',
      'invalid_state',
      `Checkout session ${id} is ${status} and cannot be ${action}`,
    ),
  /** Cancel of a completed or canceled session (405, docs/acp.md §4). */
  notCancelable: (id: string, status: CheckoutStatus) =>
    new AppError(
      405,
      'invalid_request',
      'invalid_state',
      `Checkout session ${id} is ${status} and cannot be canceled`,
    ),
  invalid: (param: string, message: string) =>
    new RequestValidationError(400, 'invalid_request', 'invalid', `${param}: ${message}`, param),
  missing: (param: string, message: string) =>
    new RequestValidationError(400, 'invalid_request', 'missing', `${param}: ${message}`, param),
  unsupported: (param: string, message: string) =>
    new RequestValidationError(400, 'invalid_request', 'unsupported', message, param),
};
