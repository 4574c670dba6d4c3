import { AppError } from '../errors/app-error';

/**
 * Refusals of a user-supplied URL (safe-fetch.ts). All 4xx: the URL came from the caller, so a
 * URL we will not fetch, or one that does not answer well, is their input's fault, never ours.
 * `param` is the caller's JSONPath of the field that held the URL, when it has one.
 */
const refuse = (status: number, code: string, message: string, param?: string) =>
  new AppError(status, 'invalid_request', code, message, param);

export const safeFetchErrors = {
  invalid: (message: string, param?: string) => refuse(400, 'url_invalid', message, param),
  notHttps: (protocol: string, allowed: readonly string[], param?: string) =>
    refuse(
      400,
      'url_not_https',
      `The URL must use ${allowed.map((p) => p.replace(/:$/, '')).join(' or ')} (got ${protocol.replace(/:$/, '')})`,
      param,
    ),
  portRefused: (port: string, param?: string) =>
    refuse(
      400,
      'url_port_refused',
      `The URL must use the default port of its scheme (got port ${port})`,
      param,
    ),
  addressRefused: (reason: string, param?: string) =>
    refuse(
      400,
      'url_address_refused',
      `The URL's host is not allowed: ${reason}. Only public internet addresses are fetched`,
      param,
    ),
  redirectRefused: (reason: string, param?: string) =>
    refuse(
      400,
      'url_redirect_refused',
      `The URL redirects where we do not follow: ${reason}`,
      param,
    ),
  tooLarge: (maxBytes: number, param?: string) =>
    refuse(413, 'url_too_large', `The resource at the URL exceeds ${maxBytes} bytes`, param),
  timeout: (timeoutMs: number, param?: string) =>
    refuse(400, 'url_timeout', `The URL did not answer completely within ${timeoutMs} ms`, param),
  fetchFailed: (reason: string, param?: string) =>
    refuse(400, 'url_fetch_failed', `The URL could not be fetched: ${reason}`, param),
};
