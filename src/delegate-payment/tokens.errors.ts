import { AppError } from '../common/errors/app-error';

const TOKEN_PARAM = '$.payment_data.instrument.credential.token';

/** Complete-time token errors (docs/acp.md §5, §7; our own codes, see its Deviations). */
export const tokenErrors = {
  invalid: () =>
    new AppError(400, 'invalid_request', 'token_invalid', 'Unknown delegated token', TOKEN_PARAM),
  used: () =>
    new AppError(
      400,
      'invalid_request',
      'token_used',
      'This delegated token was already spent; request a new one',
      TOKEN_PARAM,
    ),
  sessionMismatch: (why: string) =>
    new AppError(400, 'invalid_request', 'token_session_mismatch', why, TOKEN_PARAM),
  allowanceExceeded: (total: number, max: number) =>
    new AppError(
      400,
      'invalid_request',
      'allowance_exceeded',
      `Session total ${total} paise is above the token allowance of ${max} paise`,
      TOKEN_PARAM,
    ),
  expired: () =>
    new AppError(
      400,
      'invalid_request',
      'token_expired',
      'This delegated token has expired; request a new one',
      TOKEN_PARAM,
    ),
  revoked: () =>
    new AppError(
      400,
      'invalid_request',
      'token_revoked',
      'This delegated token was revoked by the person',
      TOKEN_PARAM,
    ),
  requiresBuyerReview: (authorizationUrl: string) =>
    new AppError(
      402,
      'invalid_request',
      'requires_buyer_review',
      `The person has not authorised the mandate behind this token yet; they can do so at ${authorizationUrl}`,
      TOKEN_PARAM,
    ),
};
