import { AppError } from '../common/errors/app-error';
import { RequestValidationError } from '../common/errors/validation';
import type { FileStatus } from './forex-file.state';

/**
 * Forex codes (docs/forex.md "Forex files"). A file, partner or document of someone else is 404, never
 * 403. Refusals of identity data (Aadhaar, a malformed PAN) are RequestValidationErrors: nothing
 * ran, so nothing is stored, not even against the Idempotency-Key, and the value is never echoed.
 */
export const forexErrors = {
  partnerNotFound: (id: string, param?: string) =>
    new AppError(
      404,
      'invalid_request',
      'forex_partner_not_found',
      `No forex partner ${id}`,
      param,
    ),
  fileNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'forex_file_not_found', `No forex file ${id}`),
  documentNotFound: (id: string) =>
    new AppError(404, 'invalid_request', 'forex_document_not_found', `No document ${id}`),
  wrongRole: () =>
    new AppError(
      403,
      'invalid_request',
      'wrong_agent_role',
      'Forex files are prepared by a buyer agent (role buyer or both)',
    ),
  aadhaarRefused: (param: string) =>
    new RequestValidationError(
      400,
      'invalid_request',
      'aadhaar_not_collected',
      'Aadhaar is not collected: remove the Aadhaar number (or Aadhaar document); nothing was stored',
      param,
    ),
  aadhaarDocument: (param: string) =>
    new RequestValidationError(
      400,
      'invalid_request',
      'aadhaar_not_collected',
      'Aadhaar is not collected: an Aadhaar card is not a document this service accepts; nothing was stored',
      param,
    ),
  panInvalid: (param: string) =>
    new RequestValidationError(
      400,
      'invalid_request',
      'invalid_pan',
      'PAN must be 10 characters: five letters, four digits, one letter (the value is not echoed)',
      param,
    ),
  panHolderType: (param: string, expected: string) =>
    new RequestValidationError(
      400,
      'invalid_request',
      'invalid_pan_holder_type',
      `This kind of file needs the PAN of ${expected} (4th letter); the value is not echoed`,
      param,
    ),
  invalid: (param: string, code: string, message: string) =>
    new AppError(400, 'invalid_request', code, message, param),
  personNotFound: () =>
    new AppError(
      400,
      'invalid_request',
      'person_not_found',
      "No person with that email in the agent's workspace",
      '$.person_email',
    ),
  notInState: (id: string, status: FileStatus, action: string) =>
    new AppError(
      409,
      'invalid_request',
      'forex_file_state',
      `File ${id} is ${status}: it cannot ${action} now`,
    ),
  rateLockLapsed: (at: Date) =>
    new AppError(
      409,
      'invalid_request',
      'rate_lock_lapsed',
      `The rate lock lapsed at ${at.toISOString()}: request a fresh quote (POST /v1/pay/forex/quotes) and submit again`,
    ),
  checklistIncomplete: (missing: { key: string; label: string }[]) =>
    new AppError(
      409,
      'invalid_request',
      'checklist_incomplete',
      `The checklist is not complete. Missing or failing: ${missing
        .map((m) => `${m.key} (${m.label})`)
        .join('; ')}`,
    ),
  rateUnavailable: (currency: string, param: string) =>
    new AppError(
      400,
      'invalid_request',
      'rate_unavailable',
      `The partner has no rate for ${currency}`,
      param,
    ),
  quoteStale: () =>
    new AppError(
      409,
      'invalid_request',
      'quote_stale',
      'Another file of this PAN was submitted since this quote, which changes its TCS: request a fresh quote',
    ),
  tcsYearMissing: (fy: string) =>
    new AppError(
      409,
      'invalid_request',
      'tcs_rates_missing',
      `TCS rates for financial year ${fy} are not configured (FOREX_TCS_TABLE)`,
    ),
  declarationExpired: () =>
    new AppError(
      409,
      'invalid_request',
      'declaration_expired',
      'The time to confirm this declaration has passed; the agent must quote and submit the file again',
    ),
  documentTypeNotAccepted: () =>
    new AppError(
      415,
      'invalid_request',
      'document_type_unsupported',
      'content_type must be application/pdf, image/jpeg or image/png',
      '$.content_type',
    ),
  documentTooLarge: (max: number) =>
    new AppError(
      413,
      'invalid_request',
      'document_too_large',
      `A document may be at most ${max} bytes (5 MB, MB = 10^6 bytes) once decoded`,
      '$.content_base64',
    ),
  idempotencyKeyRequired: () =>
    new AppError(
      400,
      'invalid_request',
      'idempotency_key_required',
      'Send an Idempotency-Key header with this request',
      'Idempotency-Key',
    ),
};
