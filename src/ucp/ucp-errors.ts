import { ArgumentsHost, Catch, ExceptionFilter, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { ReplayedResponse, toAppError } from '../common/errors/all-exceptions.filter';
import { AppError } from '../common/errors/app-error';
import { RequestValidationError } from '../common/errors/validation';
import { UCP_VERSION } from './ucp-profile';

/**
 * UCP errors (docs/ucp.md "Errors"): every refusal on /ucp is an error_response
 * (`{ucp: {version, status: "error"}, messages: [{type: "error", code, content, severity}]}`)
 * with the HTTP status below. Our AppError codes pass through unchanged (UCP's error codes are
 * open), except the few UCP names a standard code for.
 */

export type UcpSeverity =
  'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable';

export interface UcpErrorBody {
  ucp: { version: string; status: 'error'; capabilities?: Record<string, unknown> };
  messages: {
    type: 'error';
    code: string;
    content: string;
    severity: UcpSeverity;
    path?: string;
  }[];
}

/** A refusal decided by the UCP layer itself; `severity` overrides the default by status. */
export class UcpError extends AppError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly severity: UcpSeverity,
    param?: string,
  ) {
    super(status, 'invalid_request', code, message, param);
  }
}

/** Body-shape refusals: like the ACP pipe's, never stored on an Idempotency-Key. */
export class UcpInputError extends RequestValidationError {}

export const ucpErrors = {
  invalid: (path: string, message: string) =>
    new UcpInputError(400, 'invalid_request', 'invalid', `${path}: ${message}`, path),
  missing: (path: string, message: string) =>
    new UcpInputError(400, 'invalid_request', 'missing', `${path}: ${message}`, path),
  unsupportedInstrument: (path: string, type: string) =>
    new UcpInputError(
      400,
      'invalid_request',
      'instrument_unsupported',
      `Payment instruments of type ${type.slice(0, 40)} are not accepted: pay with the svc_upi_mandate handler (type svc_mandate, a delegated UPI mandate token)`,
      path,
    ),
  unsupportedHandler: (path: string) =>
    new UcpInputError(
      400,
      'invalid_request',
      'payment_handler_unsupported',
      'Unknown payment handler; the only one is svc_upi_mandate (com.svc.upi_mandate)',
      path,
    ),
  // Negotiation (docs/ucp.md "Negotiation"): the statuses the UCP core specification gives them.
  invalidProfileUrl: (message: string) =>
    new UcpError(400, 'invalid_profile_url', message, 'unrecoverable'),
  profileUnreachable: (message: string) =>
    new UcpError(424, 'profile_unreachable', message, 'unrecoverable'),
  profileMalformed: (message: string) =>
    new UcpError(422, 'profile_malformed', message, 'unrecoverable'),
  versionUnsupported: (version: string) =>
    new UcpError(
      422,
      'version_unsupported',
      `UCP version ${version.slice(0, 40)} is not supported; this business implements ${UCP_VERSION}`,
      'unrecoverable',
    ),
  /** A business outcome in UCP: HTTP 200 with ucp.status error and no active capabilities. */
  capabilitiesIncompatible: () =>
    new UcpError(
      200,
      'capabilities_incompatible',
      `The platform profile declares no ${'dev.ucp.shopping.checkout'} at version ${UCP_VERSION}, the only capability this business offers`,
      'unrecoverable',
    ),
  /**
   * checkout-rest.md "Business Outcomes": a create whose items the seller does not offer creates
   * nothing and is HTTP 200 with ucp.status error and an item_unavailable message.
   */
  itemUnavailable: (message: string, param?: string) =>
    new UcpError(200, 'item_unavailable', message, 'unrecoverable', param),
};

/**
 * A UCP create (REST and MCP): an item the seller does not offer (the checkout's 400
 * invalid_item_id) is the business outcome item_unavailable (docs/ucp.md "Errors"). Thrown inside
 * the handler, so the idempotency interceptor rolls back and stores it like any refusal.
 */
export async function unavailableItemsAsOutcome<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_item_id') {
      throw ucpErrors.itemUnavailable(err.message, err.param);
    }
    throw err;
  }
}

/** Business outcomes (HTTP 200, ucp.status error): nothing exists to act on. */
const OUTCOME_CODES = new Set(['item_unavailable', 'capabilities_incompatible']);

/** Our codes UCP has a standard name for. */
const CODE_NAMES: Record<string, string> = {
  invalid_item_id: 'item_unavailable',
};

/** HTTP statuses UCP names differently from ACP. */
function ucpStatus(err: AppError): number {
  if (err.code === 'idempotency_conflict') {
    return HttpStatus.CONFLICT; // UCP: a key reused with other parameters is 409
  }
  if (err.status === 405) {
    return HttpStatus.CONFLICT; // cancel of a completed or canceled session
  }
  return err.status;
}

function severityOf(err: AppError): UcpSeverity {
  if (err instanceof UcpError) {
    return err.severity;
  }
  if (OUTCOME_CODES.has(err.code)) {
    return 'unrecoverable'; // also when replayed from a stored refusal
  }
  if (err.code === 'requires_buyer_review') {
    return 'requires_buyer_review';
  }
  if (err.status === 404 || err.status === 405 || err.code === 'invalid_state') {
    return 'unrecoverable';
  }
  return err.status < 500 || err.status === 503 ? 'recoverable' : 'unrecoverable';
}

/**
 * ACP-side JSONPaths as UCP's request has them: an item's SKU is line_items[i].item.id; the
 * credential is that of the instrument paid with (`[*]`: the service does not know its index).
 */
function ucpPath(param: string | undefined): string | undefined {
  return param
    ?.replace(/^\$\.line_items\[(\d+)\]\.id$/, '$.line_items[$1].item.id')
    .replace(/^\$\.payment_data\.instrument(?=\.|$)/, '$.payment.instruments[*]');
}

export function ucpErrorOf(err: AppError): { status: number; body: UcpErrorBody } {
  const message: UcpErrorBody['messages'][number] = {
    type: 'error',
    code: CODE_NAMES[err.code] ?? err.code,
    content: err.message,
    severity: severityOf(err),
  };
  const path = ucpPath(err.param);
  if (path !== undefined) {
    message.path = path;
  }
  const ucp: UcpErrorBody['ucp'] = { version: UCP_VERSION, status: 'error' };
  if (err.code === 'capabilities_incompatible') {
    ucp.capabilities = {};
  }
  return { status: ucpStatus(err), body: { ucp, messages: [message] } };
}

/**
 * A stored refusal (kept by the IdempotencyInterceptor in its /v1 shape) as the AppError it was.
 * Also used by the MCP binding (src/mcp/ucp/ucp-mcp.factory.ts).
 */
export function replayedError(replay: ReplayedResponse): AppError | null {
  let body: unknown = replay.body;
  if (replay.raw !== null) {
    try {
      body = JSON.parse(replay.raw);
    } catch {
      return null;
    }
  }
  const e = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string') {
    return null;
  }
  return new AppError(
    replay.status,
    'invalid_request',
    e.code,
    e.message,
    typeof e.param === 'string' ? e.param : undefined,
  );
}

/** The paths whose every error is a UCP error_response, also before routing (src/app.setup.ts). */
export function isUcpPath(path: string): boolean {
  return path === '/ucp' || path.startsWith('/ucp/') || path === '/.well-known/ucp';
}

/** Renders every error of a /ucp route (guards, interceptor, handler) as a UCP error_response. */
@Catch()
export class UcpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('UcpErrors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    if (res.headersSent) {
      return;
    }
    let err: AppError;
    if (exception instanceof ReplayedResponse) {
      const stored = replayedError(exception);
      if (!stored) {
        res.status(exception.status).json(exception.body);
        return;
      }
      err = stored;
    } else {
      err = toAppError(exception, req, this.logger);
    }
    if (err.extra.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(err.extra.retryAfterSeconds));
    }
    if (err.status === 401) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="ucp"');
    }
    if (err.status === 503) {
      res.setHeader('Cache-Control', 'no-store');
    }
    const { status, body } = ucpErrorOf(err);
    res.status(status).json(body);
  }
}
