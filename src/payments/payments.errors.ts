import { AppError } from '../common/errors/app-error';

export const paymentErrors = {
  intentNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'not_found', `No payment intent ${id}`),
};
