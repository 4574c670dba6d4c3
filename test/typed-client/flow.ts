// Worked example of the typed client (clients/typescript) as an integrator writes it: nothing typed
// by hand, every shape from the generated schema. test/e2e/typed-client.e2e-spec.ts runs these
// flows against the real app; docs/try-it.md "A typed client" points here.
import type { Middleware } from 'openapi-fetch';

import { createPaymentsClient, ok, type Schemas } from '../../clients/typescript';

export interface FlowInput {
  baseUrl: string;
  /** MERCHANT_PROTOCOL_KEY: the agent platform checking out with the seller. */
  merchantProtocolKey: string;
  /** BUYER_PROTOCOL_KEY: the buyer's assistant. */
  buyerProtocolKey: string;
  /** SELLER_AGENT_CREDENTIAL: refunds and quotes are the seller agent's. */
  sellerAgentCredential: string;
  sellerAgentId: string;
  buyerAgentId: string;
  /** An active standing mandate of the buyer agent. */
  mandateId: string;
  /** A published offer of the seller. */
  sku: string;
  /** Sees every response (e.g. to check it against the contract). */
  middleware?: Middleware;
}

export interface PurchaseResult {
  session: Schemas['AcpCheckoutSession'];
  receipt: Schemas['ReceiptDoc'];
  refund: Schemas['RefundResponse'];
}

function clients(input: FlowInput) {
  const make = (credential?: string) => {
    const client = createPaymentsClient({ baseUrl: input.baseUrl, credential });
    if (input.middleware) {
      client.use(input.middleware);
    }
    return client;
  };
  return {
    merchant: make(input.merchantProtocolKey),
    buyer: make(input.buyerProtocolKey),
    seller: make(input.sellerAgentCredential),
    // The public pay API takes no credential: the quote id is the capability.
    anyone: make(),
  };
}

/**
 * ACP: create (quantity left out: 1) → update → delegate_payment → complete → get, the buyer's
 * receipt, and the seller's refund request. The client adds API-Version and Idempotency-Key.
 */
export async function runPurchase(input: FlowInput): Promise<PurchaseResult> {
  const { merchant, buyer, seller } = clients(input);

  const created = await ok(
    merchant.POST('/acp/checkout_sessions', {
      body: { line_items: [{ id: input.sku }], currency: 'inr', capabilities: {} },
    }),
  );
  const handler = created.capabilities.payment.handlers[0];
  if (handler.config.merchant_id !== input.sellerAgentId) {
    throw new Error('the handler names another merchant');
  }

  const updated = await ok(
    merchant.POST('/acp/checkout_sessions/{checkout_session_id}', {
      params: { path: { checkout_session_id: created.id } },
      body: { line_items: [{ id: input.sku, quantity: 2 }] },
    }),
  );
  const total = updated.totals.find((t) => t.type === 'total');
  if (!total) {
    throw new Error('no total');
  }

  const token = await ok(
    buyer.POST('/acp/agentic_commerce/delegate_payment', {
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

  const completed = await ok(
    merchant.POST('/acp/checkout_sessions/{checkout_session_id}/complete', {
      params: { path: { checkout_session_id: updated.id } },
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
  // The typed order: its permalink is a field of the generated type, not a guess.
  if (completed.status !== 'completed' || !completed.order?.permalink_url || !receiptId) {
    throw new Error(`complete: ${completed.status}`);
  }

  const session = await ok(
    merchant.GET('/acp/checkout_sessions/{checkout_session_id}', {
      params: { path: { checkout_session_id: updated.id } },
    }),
  );
  const receipt = await ok(
    buyer.GET('/acp/receipts/{receipt_id}', { params: { path: { receipt_id: receiptId } } }),
  );
  const refund = await ok(
    seller.POST('/v1/pay/intents/{id}/refunds', {
      params: { path: { id: receipt.intent_id } },
      body: { amount_paise: Math.min(100, receipt.amount_paise), reason: 'Typed client test' },
    }),
  );
  return { session, receipt, refund };
}

export interface PayLinkResult {
  quote: Schemas['QuoteResponse'];
  checkout: Schemas['HostedCheckoutResponse'];
  paidQuote: Schemas['QuoteResponse'];
}

/**
 * A pay link: the seller agent quotes the buyer agent (pay_url), then the public pay API pays it as
 * the hosted page does on the sandbox rail (docs/hosted-pay.md).
 */
export async function runPayLink(input: FlowInput): Promise<PayLinkResult> {
  const { seller, anyone } = clients(input);
  const quote = await ok(
    seller.POST('/v1/pay/quotes', {
      body: {
        buyer_agent_id: input.buyerAgentId,
        category: 'food.tea',
        items: [{ name: 'Assam tea 1 kg', unit_paise: 45_000 }],
      },
    }),
  );
  const page = await ok(
    anyone.GET('/v1/public/pay/quotes/{quote_id}', { params: { path: { quote_id: quote.id } } }),
  );
  if (!page.payable) {
    throw new Error(`not payable: ${page.reason ?? '?'}`);
  }
  const started = await ok(
    anyone.POST('/v1/public/pay/quotes/{quote_id}/checkout', {
      params: { path: { quote_id: quote.id } },
    }),
  );
  const checkout = await ok(
    anyone.POST('/v1/public/pay/quotes/{quote_id}/checkout/{checkout_id}/complete', {
      params: { path: { quote_id: quote.id, checkout_id: started.id } },
      body: { outcome: 'success' },
    }),
  );
  const paidQuote = await ok(
    seller.GET('/v1/pay/quotes/{id}', { params: { path: { id: quote.id } } }),
  );
  return { quote, checkout, paidQuote };
}
