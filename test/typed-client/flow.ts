// A client flow written against the types openapi-typescript generates from openapi/openapi.json.
// test/e2e/typed-client.e2e-spec.ts generates .tmp/typed-client/openapi.ts, type-checks this file
// with ./tsconfig.json (so a contract change that breaks a client breaks the test) and then runs it
// against the real app. Kept out of the root tsconfig: the generated file is not committed.
import createClient, { type Middleware } from 'openapi-fetch';

import type { components, paths } from '../../.tmp/typed-client/openapi';

export interface FlowInput {
  baseUrl: string;
  /** acpk_… merchant protocol key of the seller agent. */
  merchantKey: string;
  /** acpk_… buyer protocol key of the buyer agent. */
  buyerKey: string;
  /** agc_… credential of the seller agent (refunds are asked by the seller). */
  sellerCredential: string;
  sellerAgentId: string;
  /** An active standing mandate of the buyer agent. */
  mandateId: string;
  /** A published offer of the seller. */
  sku: string;
  /** Sees every response (e.g. to validate it against the contract). */
  middleware: Middleware;
  idempotencyKey: () => string;
}

export interface FlowResult {
  session: components['schemas']['AcpCheckoutSession'];
  receipt: components['schemas']['ReceiptDoc'];
  refund: components['schemas']['RefundResponse'];
}

const API_VERSION = '2026-04-17' as const;

function ok<T>(step: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) {
    throw new Error(`${step}: HTTP ${r.response.status} ${JSON.stringify(r.error)}`);
  }
  return r.data;
}

/** create → update → delegate_payment → complete → get → receipt → refund. */
export async function runFlow(input: FlowInput): Promise<FlowResult> {
  const client = (token: string) => {
    const c = createClient<paths>({
      baseUrl: input.baseUrl,
      headers: { Authorization: `Bearer ${token}` },
    });
    c.use(input.middleware);
    return c;
  };
  const merchant = client(input.merchantKey);
  const buyer = client(input.buyerKey);
  const seller = client(input.sellerCredential);
  const acpHeaders = () => ({
    'API-Version': API_VERSION,
    'Idempotency-Key': input.idempotencyKey(),
  });

  const created = ok(
    'create',
    await merchant.POST('/acp/checkout_sessions', {
      params: { header: acpHeaders() },
      body: { line_items: [{ id: input.sku }], currency: 'inr', capabilities: {} },
    }),
  );
  const handler = created.capabilities.payment.handlers[0];
  if (handler.config.merchant_id !== input.sellerAgentId) {
    throw new Error('the handler names another merchant');
  }

  const updated = ok(
    'update',
    await merchant.POST('/acp/checkout_sessions/{checkout_session_id}', {
      params: { header: acpHeaders(), path: { checkout_session_id: created.id } },
      body: { line_items: [{ id: input.sku, quantity: 2 }] },
    }),
  );
  const total = updated.totals.find((t) => t.type === 'total');
  if (!total) {
    throw new Error('no total');
  }

  const token = ok(
    'delegate_payment',
    await buyer.POST('/acp/agentic_commerce/delegate_payment', {
      params: { header: acpHeaders() },
      body: {
        payment_method: { type: 'svc_mandate', mandate_id: input.mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: total.amount,
          currency: 'inr',
          checkout_session_id: updated.id,
          merchant_id: handler.config.merchant_id,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      },
    }),
  );

  const completed = ok(
    'complete',
    await merchant.POST('/acp/checkout_sessions/{checkout_session_id}/complete', {
      params: { header: acpHeaders(), path: { checkout_session_id: updated.id } },
      body: {
        payment_data: {
          handler_id: handler.id,
          instrument: {
            type: handler.config.instrument_type,
            credential: { type: handler.config.credential_type, token: token.id },
          },
        },
      },
    }),
  );
  const receiptId = completed.metadata.svc_receipt_id;
  if (completed.status !== 'completed' || !completed.order || !receiptId) {
    throw new Error(`complete: ${completed.status}`);
  }

  const session = ok(
    'get',
    await merchant.GET('/acp/checkout_sessions/{checkout_session_id}', {
      params: { header: { 'API-Version': API_VERSION }, path: { checkout_session_id: updated.id } },
    }),
  );

  const receipt = ok(
    'receipt',
    await buyer.GET('/acp/receipts/{receipt_id}', {
      params: { header: { 'API-Version': API_VERSION }, path: { receipt_id: receiptId } },
    }),
  );

  const refund = ok(
    'refund',
    await seller.POST('/v1/pay/intents/{id}/refunds', {
      params: {
        header: { 'Idempotency-Key': input.idempotencyKey() },
        path: { id: receipt.intent_id },
      },
      body: { amount_paise: Math.min(100, receipt.amount_paise), reason: 'Typed client test' },
    }),
  );

  return { session, receipt, refund };
}
