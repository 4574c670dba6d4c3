import { AppError } from './app-error';

/** Content-Type of every JSON response (what express's res.json sets), also on replays. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Which wire shape a route speaks. */
export type ErrorFlavor = 'acp' | 'v1';

export interface AcpErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
  supported_versions?: string[];
}

export interface V1ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

export function flavorOf(path: string): ErrorFlavor {
  return path.startsWith('/acp') ? 'acp' : 'v1';
}

/** The PSP side of ACP: its Error.code is a closed list (docs/acp.md §7). */
export const DELEGATE_PAYMENT_PREFIX = '/acp/agentic_commerce/';

/** The official delegate_payment Error.code enum (2026-04-17). */
export const DELEGATE_PAYMENT_CODES: readonly string[] = [
  'invalid_card',
  'duplicate_request',
  'idempotency_conflict',
  'too_many_requests',
  'idempotency_key_required',
  'idempotency_in_flight',
];

/** Codes outside that enum we send on purpose (docs/acp.md "Deviations"). */
export const DELEGATE_PAYMENT_DEVIATION_CODES: readonly string[] = [
  'missing_api_version',
  'unsupported_api_version',
  'unauthorized',
  'invalid_allowance',
  'mandate_not_found',
  'mandate_cap_exceeded',
];

/** The official checkout Error.type enum: rate_limit_exceeded is not in it. */
const CHECKOUT_TYPES: readonly string[] = [
  'invalid_request',
  'processing_error',
  'service_unavailable',
];

/**
 * The code an /acp delegate_payment error goes out with. Our shared codes stay as they are
 * everywhere else (/v1, checkout); only here are they folded into the official list:
 * 401/403 (`wrong_credential`, `wrong_role`, `invalid_signature`, `stale_timestamp`) become
 * `unauthorized`; a 5xx becomes `too_many_requests` (its `type` still says processing_error or
 * service_unavailable: back off and retry with the same key, nothing was stored); any other 4xx
 * (`missing`, `invalid`, `invalid_json`, `unsupported`, 404, 405, 413, 415) becomes `invalid_card`,
 * the enum's one request-validation code. The message and `param` still say what was wrong.
 */
export function delegatePaymentCode(err: AppError): string {
  if (
    DELEGATE_PAYMENT_CODES.includes(err.code) ||
    DELEGATE_PAYMENT_DEVIATION_CODES.includes(err.code)
  ) {
    return err.code;
  }
  if (err.status === 401 || err.status === 403) {
    return 'unauthorized';
  }
  if (err.status === 429 || err.status >= 500) {
    return 'too_many_requests';
  }
  return 'invalid_card';
}

/**
 * The wire {type, code} of an /acp error. Checkout's Error.code is free text, so codes pass
 * unchanged there, but its `type` has no rate_limit_exceeded: a 429 goes out as
 * service_unavailable (temporary; Retry-After says when). delegate_payment: delegatePaymentCode.
 */
export function acpWireTypeAndCode(err: AppError, path: string): { type: string; code: string } {
  if (path.startsWith(DELEGATE_PAYMENT_PREFIX)) {
    return { type: err.type, code: delegatePaymentCode(err) };
  }
  return {
    type: CHECKOUT_TYPES.includes(err.type) ? err.type : 'service_unavailable',
    code: err.code,
  };
}

/**
 * The body of an error response. `path` (the request path) picks the /acp mapping of
 * acpWireTypeAndCode; /v1 bodies carry our codes unchanged.
 */
export function renderError(
  err: AppError,
  flavor: ErrorFlavor,
  requestId: string,
  path = '',
): AcpErrorBody | V1ErrorBody {
  if (flavor === 'acp') {
    const { type, code } = acpWireTypeAndCode(err, path);
    const acp: AcpErrorBody = { type, code, message: err.message };
    if (err.param !== undefined) {
      acp.param = err.param;
    }
    if (err.extra.supportedVersions) {
      acp.supported_versions = err.extra.supportedVersions;
    }
    return acp;
  }
  const flat: AcpErrorBody = { type: err.type, code: err.code, message: err.message };
  if (err.param !== undefined) {
    flat.param = err.param;
  }
  if (err.extra.supportedVersions) {
    flat.supported_versions = err.extra.supportedVersions;
  }
  return { error: { ...flat, request_id: requestId } };
}
