import { AppError } from '../common/errors/app-error';

export const approvalErrors = {
  notFound: (id: string) => new AppError(404, 'invalid_request', 'not_found', `No approval ${id}`),
  alreadyDecided: (id: string, status: string) =>
    new AppError(
      409,
      'invalid_request',
      'approval_already_decided',
      `Approval ${id} is already ${status}`,
    ),
  expired: (id: string) =>
    new AppError(409, 'invalid_request', 'approval_expired', `Approval ${id} has expired`),
};
