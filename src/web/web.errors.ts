import { AppError } from '../common/errors/app-error';

/** Errors of the person-facing app. The web filter renders them as HTML pages, never JSON. */
export const webErrors = {
  invalidCredentials: () =>
    new AppError(
      401,
      'invalid_request',
      'invalid_credentials',
      'That email and password do not match an account.',
    ),
  notSignedIn: () =>
    new AppError(
      401,
      'invalid_request',
      'not_signed_in',
      'Your session has ended. Sign in again to continue.',
    ),
  csrfFailed: () =>
    new AppError(
      403,
      'invalid_request',
      'csrf_failed',
      'This form is out of date or did not come from this site. Go back, reload the page and try again.',
    ),
};
