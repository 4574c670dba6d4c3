/**
 * The one error type services throw. ACP routes render it flat ({type, code, message, param});
 * /v1 routes render it inside {"error": {...}} with the request id (see error-body.ts).
 */
export type ErrorType =
  'invalid_request' | 'processing_error' | 'service_unavailable' | 'rate_limit_exceeded';

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly extra: { supportedVersions?: string[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }
}

/** Codes shared by every module. Module-specific codes live in the module's *.errors.ts. */
export const commonErrors = {
  unauthorized: (message = 'Missing or invalid credential') =>
    new AppError(401, 'invalid_request', 'unauthorized', message),
  forbidden: (message: string) => new AppError(403, 'invalid_request', 'forbidden', message),
  notFound: (what: string, id: string) =>
    new AppError(404, 'invalid_request', 'not_found', `No ${what} ${id}`),
  invalid: (param: string, message: string) =>
    new AppError(400, 'invalid_request', 'invalid', message, param),
  missing: (param: string, message: string) =>
    new AppError(400, 'invalid_request', 'missing', message, param),
  malformedJson: () =>
    new AppError(400, 'invalid_request', 'invalid_json', 'Request body is not valid JSON'),
  unsupportedMediaType: (got: string) =>
    new AppError(
      415,
      'invalid_request',
      'unsupported_media_type',
      `Content-Type must be application/json (got ${got})`,
    ),
  bodyTooLarge: (limit: string) =>
    new AppError(413, 'invalid_request', 'request_too_large', `Request body exceeds ${limit}`),
  internal: () =>
    new AppError(500, 'processing_error', 'internal_error', 'Unexpected error; it has been logged'),
  unavailable: (what: string) =>
    new AppError(503, 'service_unavailable', 'service_unavailable', `${what} is unavailable`),
  /** A backing service (Postgres, Redis) is unreachable or refusing connections: retry later. */
  temporarilyUnavailable: (retryAfterSeconds: number) =>
    new AppError(
      503,
      'service_unavailable',
      'service_unavailable',
      'The service is temporarily unavailable; retry after Retry-After seconds',
      undefined,
      { retryAfterSeconds },
    ),
  routeNotFound: (method: string, path: string) =>
    new AppError(404, 'invalid_request', 'route_not_found', `No route ${method} ${path}`),
  rateLimited: (retryAfterSeconds = 60) =>
    new AppError(
      429,
      'rate_limit_exceeded',
      'too_many_requests',
      'Too many requests; retry after Retry-After seconds',
      undefined,
      {
        retryAfterSeconds,
      },
    ),
  methodNotAllowed: (message: string) =>
    new AppError(405, 'invalid_request', 'invalid_state', message),
};
