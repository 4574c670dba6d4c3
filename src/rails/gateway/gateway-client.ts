import {
  CaptureGatewayPaymentInput,
  CreateGatewayCustomerInput,
  CreateGatewayOrderInput,
  CreateGatewayPaymentLinkInput,
  CreateGatewayRefundInput,
  CreateGatewayReserveBlockInput,
  CreateRecurringPaymentInput,
  DebitGatewayReserveBlockInput,
  GatewayClientOptions,
  GatewayCollection,
  GatewayCustomer,
  GatewayErrorBody,
  GatewayErrorCode,
  GatewayOrder,
  GatewayPayment,
  GatewayPaymentLink,
  GatewayReconLine,
  GatewayReconQuery,
  GatewayRecurringPaymentResult,
  GatewayRefund,
  GatewayReserveBlock,
  GatewaySettlement,
  GatewayToken,
} from './gateway-client.types';

/**
 * A failed gateway call. `retryable` is true when the call may be repeated (with the same
 * Idempotency-Key for a POST): the gateway did not answer (network error, timeout) or answered 5xx.
 * A 4xx is the gateway refusing the request and is never retried. `status` is 0 when there was no
 * HTTP answer. The message names the method and path only — never the key secret or the body.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';

  constructor(
    readonly status: number,
    readonly code: GatewayErrorCode,
    readonly description: string,
    readonly retryable: boolean,
    readonly field: string | null = null,
    readonly operation = '',
    /** For a failed payment attempt: why it failed, and the ids of the failed payment and order. */
    readonly reason: string | null = null,
    readonly metadata: { order_id?: string; payment_id?: string } | null = null,
  ) {
    super(`${operation ? `${operation}: ` : ''}${status || code} ${description}`.trim());
  }
}

type HttpMethod = 'GET' | 'POST' | 'DELETE';

const ERROR_CODES: ReadonlySet<string> = new Set<GatewayErrorCode>([
  'BAD_REQUEST_ERROR',
  'GATEWAY_ERROR',
  'SERVER_ERROR',
]);

/**
 * Typed client for the gateway's HTTP API (docs/gateway-simulator.md); in tests it talks to the
 * simulator in gateway-sim/. Plain global `fetch` with a per-request timeout, HTTP Basic
 * `key_id:key_secret`, and an optional Idempotency-Key on every POST. List endpoints return the
 * collection's `items`.
 */
export class GatewayClient {
  readonly #apiUrl: string;
  readonly #authorization: string;
  readonly #timeoutMs: number;

  constructor(options: GatewayClientOptions) {
    this.#apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.#authorization = `Basic ${Buffer.from(`${options.keyId}:${options.keySecret}`).toString('base64')}`;
    this.#timeoutMs = options.timeoutMs;
  }

  // ---- Orders

  createOrder(input: CreateGatewayOrderInput, idempotencyKey?: string): Promise<GatewayOrder> {
    return this.request('POST', '/v1/orders', input, idempotencyKey);
  }

  getOrder(orderId: string): Promise<GatewayOrder> {
    return this.request('GET', `/v1/orders/${seg(orderId)}`);
  }

  /** Orders created with this receipt — how a caller that lost a create response finds its order. */
  async findOrdersByReceipt(receipt: string): Promise<GatewayOrder[]> {
    const list = await this.request<GatewayCollection<GatewayOrder>>(
      'GET',
      `/v1/orders?${new URLSearchParams({ receipt }).toString()}`,
    );
    return list.items;
  }

  async listOrderPayments(orderId: string): Promise<GatewayPayment[]> {
    const list = await this.request<GatewayCollection<GatewayPayment>>(
      'GET',
      `/v1/orders/${seg(orderId)}/payments`,
    );
    return list.items;
  }

  // ---- Payments

  getPayment(paymentId: string): Promise<GatewayPayment> {
    return this.request('GET', `/v1/payments/${seg(paymentId)}`);
  }

  capturePayment(
    paymentId: string,
    input: CaptureGatewayPaymentInput,
    idempotencyKey?: string,
  ): Promise<GatewayPayment> {
    return this.request('POST', `/v1/payments/${seg(paymentId)}/capture`, input, idempotencyKey);
  }

  /** Server-side debit on a confirmed recurring token (UPI AutoPay). */
  createRecurringPayment(
    input: CreateRecurringPaymentInput,
    idempotencyKey?: string,
  ): Promise<GatewayRecurringPaymentResult> {
    return this.request('POST', '/v1/payments/create/recurring', input, idempotencyKey);
  }

  // ---- Customers and tokens

  createCustomer(
    input: CreateGatewayCustomerInput,
    idempotencyKey?: string,
  ): Promise<GatewayCustomer> {
    return this.request('POST', '/v1/customers', input, idempotencyKey);
  }

  async listTokens(customerId: string): Promise<GatewayToken[]> {
    const list = await this.request<GatewayCollection<GatewayToken>>(
      'GET',
      `/v1/customers/${seg(customerId)}/tokens`,
    );
    return list.items;
  }

  /** Cancels the token (the mandate); repeating it returns the cancelled token again. */
  cancelToken(customerId: string, tokenId: string): Promise<GatewayToken> {
    return this.request('DELETE', `/v1/customers/${seg(customerId)}/tokens/${seg(tokenId)}`);
  }

  // ---- Refunds

  createRefund(
    paymentId: string,
    input: CreateGatewayRefundInput = {},
    idempotencyKey?: string,
  ): Promise<GatewayRefund> {
    return this.request('POST', `/v1/payments/${seg(paymentId)}/refund`, input, idempotencyKey);
  }

  getRefund(refundId: string): Promise<GatewayRefund> {
    return this.request('GET', `/v1/refunds/${seg(refundId)}`);
  }

  async listPaymentRefunds(paymentId: string): Promise<GatewayRefund[]> {
    const list = await this.request<GatewayCollection<GatewayRefund>>(
      'GET',
      `/v1/payments/${seg(paymentId)}/refunds`,
    );
    return list.items;
  }

  // ---- Settlements

  getSettlement(settlementId: string): Promise<GatewaySettlement> {
    return this.request('GET', `/v1/settlements/${seg(settlementId)}`);
  }

  /** Settled payments and refunds of one day (or a whole month without `day`), days in IST. */
  async getSettlementRecon(query: GatewayReconQuery): Promise<GatewayReconLine[]> {
    const params = new URLSearchParams({ year: String(query.year), month: String(query.month) });
    if (query.day !== undefined) {
      params.set('day', String(query.day));
    }
    const list = await this.request<GatewayCollection<GatewayReconLine>>(
      'GET',
      `/v1/settlements/recon/combined?${params.toString()}`,
    );
    return list.items;
  }

  // ---- Payment links

  createPaymentLink(
    input: CreateGatewayPaymentLinkInput,
    idempotencyKey?: string,
  ): Promise<GatewayPaymentLink> {
    return this.request('POST', '/v1/payment_links', input, idempotencyKey);
  }

  getPaymentLink(linkId: string): Promise<GatewayPaymentLink> {
    return this.request('GET', `/v1/payment_links/${seg(linkId)}`);
  }

  cancelPaymentLink(linkId: string, idempotencyKey?: string): Promise<GatewayPaymentLink> {
    return this.request('POST', `/v1/payment_links/${seg(linkId)}/cancel`, {}, idempotencyKey);
  }

  // ---- Reserve Pay

  createReserveBlock(
    input: CreateGatewayReserveBlockInput,
    idempotencyKey?: string,
  ): Promise<GatewayReserveBlock> {
    return this.request('POST', '/v1/reserve_pay/blocks', input, idempotencyKey);
  }

  /** Debits part of an active block; the result is a captured payment. */
  debitReserveBlock(
    blockId: string,
    input: DebitGatewayReserveBlockInput,
    idempotencyKey?: string,
  ): Promise<GatewayPayment> {
    return this.request(
      'POST',
      `/v1/reserve_pay/blocks/${seg(blockId)}/debits`,
      input,
      idempotencyKey,
    );
  }

  /** Releases what is left of the block to the payer. */
  releaseReserveBlock(blockId: string, idempotencyKey?: string): Promise<GatewayReserveBlock> {
    return this.request(
      'POST',
      `/v1/reserve_pay/blocks/${seg(blockId)}/release`,
      {},
      idempotencyKey,
    );
  }

  getReserveBlock(blockId: string): Promise<GatewayReserveBlock> {
    return this.request('GET', `/v1/reserve_pay/blocks/${seg(blockId)}`);
  }

  // ---- Transport

  private async request<T>(
    method: HttpMethod,
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<T> {
    const operation = `${method} ${path.split('?')[0]}`;
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      accept: 'application/json',
    };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
    }
    if (idempotencyKey !== undefined) {
      headers['idempotency-key'] = idempotencyKey;
    }

    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.#apiUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      throw transportError(err, operation, this.#timeoutMs);
    }

    const parsed = parseJson(text);
    if (status >= 200 && status < 300) {
      if (parsed === undefined) {
        throw new GatewayError(
          status,
          'SERVER_ERROR',
          'The gateway answered with a body that is not JSON',
          true,
          null,
          operation,
        );
      }
      return parsed as T;
    }
    throw httpError(status, parsed, operation);
  }
}

function seg(id: string): string {
  return encodeURIComponent(id);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function httpError(status: number, parsed: unknown, operation: string): GatewayError {
  const retryable = status >= 500;
  const error = (parsed as Partial<GatewayErrorBody> | undefined)?.error;
  const code: GatewayErrorCode =
    typeof error?.code === 'string' && ERROR_CODES.has(error.code)
      ? error.code
      : retryable
        ? 'SERVER_ERROR'
        : 'BAD_REQUEST_ERROR';
  const description =
    typeof error?.description === 'string' && error.description
      ? error.description.slice(0, 500)
      : `The gateway answered HTTP ${status}`;
  const field = typeof error?.field === 'string' ? error.field : null;
  const reason = typeof error?.reason === 'string' ? error.reason : null;
  const meta = error?.metadata;
  const metadata =
    meta && typeof meta === 'object'
      ? {
          ...(typeof meta.order_id === 'string' ? { order_id: meta.order_id } : {}),
          ...(typeof meta.payment_id === 'string' ? { payment_id: meta.payment_id } : {}),
        }
      : null;
  return new GatewayError(status, code, description, retryable, field, operation, reason, metadata);
}

/** No HTTP answer. Only the error's kind is kept: never the request, its headers or a cause chain. */
function transportError(err: unknown, operation: string, timeoutMs: number): GatewayError {
  // Not `instanceof`: fetch's DOMException and its causes may come from another realm.
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    name?: unknown;
    cause?: unknown;
  };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new GatewayError(
      0,
      'TIMEOUT',
      `No answer from the gateway within ${timeoutMs} ms`,
      true,
      null,
      operation,
    );
  }
  const cause = (typeof e.cause === 'object' && e.cause !== null ? e.cause : {}) as {
    code?: unknown;
  };
  const detail = typeof cause.code === 'string' ? ` (${cause.code})` : '';
  return new GatewayError(
    0,
    'NETWORK_ERROR',
    `The gateway could not be reached${detail}`,
    true,
    null,
    operation,
  );
}
