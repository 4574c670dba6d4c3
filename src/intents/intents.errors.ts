import { AppError } from '../common/errors/app-error';

export const intentErrors = {
  notFound: (id: string) =>
    new AppError(404, 'invalid_request', 'intent_not_found', `No payment intent ${id}`),
};
