// The service's typed TypeScript client. Every type comes from schema.d.ts, which openapi-typescript
// generates from openapi/openapi.json (`npm run client:generate`; a test fails when it is stale); the
// calls are openapi-fetch's. This file adds only what docs/security.md asks of every caller: the
// credential as a bearer, an Idempotency-Key on every POST (one per call, the same on its retries),
// API-Version on /acp, retries of what the service says to retry, and its errors as one error class.
// docs/try-it.md "A typed client" shows it beside curl.
import createClient, { type Client, type Middleware } from 'openapi-fetch';

import type { components, operations, paths } from './schema';

export type { components, operations, paths };
/** Every named schema of the contract, e.g. `Schemas['AcpCheckoutSession']`. */
export type Schemas = components['schemas'];

/** The ACP version this client was generated for (the contract's API-Version). */
export const ACP_API_VERSION = '2026-04-17';

/** Headers the client sets itself when a call leaves them out. */
type AutoHeader = 'API-Version' | 'Idempotency-Key';

/** Shown as an object literal in editors instead of an intersection. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

type LooseHeaders<H> = Flat<
  { [K in keyof H as K extends AutoHeader ? never : K]: H[K] } & {
    [K in keyof H as K extends AutoHeader ? K : never]?: H[K];
  }
>;

/** An operation's parameters with the automatic headers optional (and `header` too when nothing else in it is required). */
type LooseParameters<P> = P extends { header: infer H }
  ? Flat<
      { [K in keyof P as K extends 'header' ? never : K]: P[K] } & (Partial<
        LooseHeaders<H>
      > extends LooseHeaders<H>
        ? { header?: LooseHeaders<H> }
        : { header: LooseHeaders<H> })
    >
  : P;

type LooseOperation<O> = O extends { parameters: infer P }
  ? Flat<Omit<O, 'parameters'> & { parameters: LooseParameters<P> }>
  : O;

/** The generated `paths`, with API-Version and Idempotency-Key left to the client. */
export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: LooseOperation<paths[Path][Method]> };
};

export type PaymentsClient = Client<ClientPaths, 'application/json'>;

export interface PaymentsClientOptions {
  /** The service's address (BASE_URL), e.g. http://localhost:3000. */
  baseUrl: string;
  /**
   * The bearer credential for this client's calls (docs/credentials.md): a workspace API key
   * (sk_test_…), an agent credential (agc_…) or a protocol key (acpk_…). None for public routes.
   */
  credential?: string;
  /** Retries of a call the service says to retry (409 in flight, 429, 503, no answer). Default 2. */
  retries?: number;
  /** Longest wait before a retry, whatever Retry-After says (ms). Default 5000. */
  maxRetryDelayMs?: number;
  /** A fresh Idempotency-Key (default: crypto.randomUUID). */
  idempotencyKey?: () => string;
  /** The fetch to call (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * An error answer of the service, whichever shape its route speaks (docs/security.md "Errors"):
 * /acp's flat `{type, code, message, param}`, /v1's `{"error": {…, request_id}}`, or UCP's
 * `messages[]`.
 */
export class PaymentsApiError extends Error {
  override readonly name = 'PaymentsApiError';

  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string,
    message: string,
    readonly param: string | null,
    /** The Request-Id of the call (also in the service's logs). */
    readonly requestId: string | null,
    /** The body as the service sent it. */
    readonly body: unknown,
  ) {
    super(message);
  }

  /** The same call may succeed later (same Idempotency-Key): 409 in flight, 429, 503. */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503 || this.code === 'idempotency_in_flight';
  }
}

function field(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
}

function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** A PaymentsApiError from an error answer's status, body and Request-Id. */
export function toPaymentsApiError(
  status: number,
  body: unknown,
  requestId: string | null,
): PaymentsApiError {
  const v1 = field(body, 'error');
  const ucp = field(body, 'messages');
  const e = v1 !== undefined ? v1 : Array.isArray(ucp) && ucp.length > 0 ? ucp[0] : body;
  return new PaymentsApiError(
    status,
    text(field(e, 'type')) ?? 'error',
    text(field(e, 'code')) ?? `http_${status}`,
    text(field(e, 'message')) ?? text(field(e, 'content')) ?? `HTTP ${status}`,
    text(field(e, 'param')) ?? text(field(e, 'path')),
    text(field(e, 'request_id')) ?? requestId,
    body,
  );
}

/** What an openapi-fetch call resolves to. */
interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a call, or its error thrown as a PaymentsApiError:
 * `const session = await ok(client.POST('/acp/checkout_sessions', { body }))`.
 */
export async function ok<T>(call: Promise<Outcome<T>> | Outcome<T>): Promise<T> {
  const r = await call;
  if (r.response.ok && r.data !== undefined) {
    return r.data;
  }
  if (r.response.ok && r.response.status === 204) {
    return undefined as T;
  }
  throw toPaymentsApiError(r.response.status, r.error, r.response.headers.get('Request-Id'));
}

function defaultKey(): string {
  return globalThis.crypto.randomUUID();
}

/** ms to wait before retrying `res` (its Retry-After, else a short backoff), capped. */
function retryDelay(res: Response | null, attempt: number, cap: number): number {
  const after = Number(res?.headers.get('Retry-After'));
  const ms = Number.isFinite(after) && after >= 0 ? after * 1000 : 200 * 2 ** attempt;
  return Math.min(ms, cap);
}

/** 409 in flight (same key still running), 429, 503: the service says to come back. */
async function saysRetry(res: Response): Promise<boolean> {
  if (res.status === 429 || res.status === 503) {
    return true;
  }
  if (res.status !== 409) {
    return false;
  }
  const body: unknown = await res
    .clone()
    .json()
    .catch(() => null);
  const code = field(field(body, 'error') ?? body, 'code');
  return code === 'idempotency_in_flight';
}

/**
 * A client for one credential. Every POST gets an Idempotency-Key unless the call gives one (give
 * your own to retry a call yourself later: the service answers a retry with the first answer);
 * /acp calls get API-Version; a call the service says to retry is sent again with the same key.
 */
export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retries = options.retries ?? 2;
  const cap = options.maxRetryDelayMs ?? 5000;
  const newKey = options.idempotencyKey ?? defaultKey;

  const retrying = async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      let res: Response | null = null;
      try {
        res = await send(request.clone());
      } catch (err) {
        if (attempt >= retries) {
          throw err;
        }
      }
      if (res && (attempt >= retries || !(await saysRetry(res)))) {
        return res;
      }
      await new Promise((r) => setTimeout(r, retryDelay(res, attempt, cap)));
    }
  };

  const defaults: Middleware = {
    onRequest({ request, schemaPath }) {
      if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
        request.headers.set('Idempotency-Key', newKey());
      }
      if (schemaPath.startsWith('/acp/') && !request.headers.has('API-Version')) {
        request.headers.set('API-Version', ACP_API_VERSION);
      }
      return request;
    },
  };

  const client = createClient<ClientPaths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.credential ? { Authorization: `Bearer ${options.credential}` } : {},
    fetch: retrying,
  });
  client.use(defaults);
  return client;
}
