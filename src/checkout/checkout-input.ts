import { checkoutErrors } from './checkout.errors';
import type { PaymentDataDto } from './dto/complete-checkout-session.dto';
import { CREDENTIAL_TYPES, HANDLER_ID, INSTRUMENT_TYPE } from './upi-mandate-handler';

/**
 * Hand-checked parts of ACP request bodies: the ones the schema leaves open (payment_data.instrument,
 * the cancel body) or validates leniently (intent_trace.reason_code). Errors name the field as a
 * JSONPath and, like the ValidationPipe's, are not stored against the Idempotency-Key.
 */

export interface PaymentCredential {
  tokenId: string;
  credentialType: (typeof CREDENTIAL_TYPES)[number];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** docs/acp.md §5: our handler + svc_mandate instrument + svc_delegated_token (or spt) credential. */
export function parsePaymentData(pd: PaymentDataDto): PaymentCredential {
  if (pd.handler_id === undefined && pd.instrument === undefined) {
    if (pd.purchase_order_number !== undefined) {
      throw checkoutErrors.unsupported(
        '$.payment_data.purchase_order_number',
        'Purchase orders (B2B terms) are not accepted; pay with the svc_upi_mandate handler',
      );
    }
    throw checkoutErrors.missing('$.payment_data.handler_id', 'send handler_id and instrument');
  }
  if (pd.handler_id === undefined) {
    throw checkoutErrors.missing('$.payment_data.handler_id', `must be ${HANDLER_ID}`);
  }
  if (pd.handler_id !== HANDLER_ID) {
    throw checkoutErrors.invalid(
      '$.payment_data.handler_id',
      `unknown payment handler; the only one is ${HANDLER_ID}`,
    );
  }
  const instrument = pd.instrument;
  if (!isObject(instrument)) {
    throw checkoutErrors.missing('$.payment_data.instrument', 'required with handler_id');
  }
  if (instrument.type === undefined) {
    throw checkoutErrors.missing('$.payment_data.instrument.type', `must be ${INSTRUMENT_TYPE}`);
  }
  if (instrument.type !== INSTRUMENT_TYPE) {
    throw checkoutErrors.invalid(
      '$.payment_data.instrument.type',
      `must be ${INSTRUMENT_TYPE}; cards are not accepted`,
    );
  }
  const credential = instrument.credential;
  if (credential === undefined) {
    throw checkoutErrors.missing('$.payment_data.instrument.credential', 'required');
  }
  if (!isObject(credential)) {
    throw checkoutErrors.invalid('$.payment_data.instrument.credential', 'must be an object');
  }
  if (credential.type === undefined) {
    throw checkoutErrors.missing('$.payment_data.instrument.credential.type', 'required');
  }
  if (!CREDENTIAL_TYPES.includes(credential.type as PaymentCredential['credentialType'])) {
    throw checkoutErrors.invalid(
      '$.payment_data.instrument.credential.type',
      `must be one of ${CREDENTIAL_TYPES.join(', ')}`,
    );
  }
  if (credential.token === undefined) {
    throw checkoutErrors.missing(
      '$.payment_data.instrument.credential.token',
      'the vt_ token from delegate_payment',
    );
  }
  if (
    typeof credential.token !== 'string' ||
    credential.token.length === 0 ||
    credential.token.length > 256
  ) {
    throw checkoutErrors.invalid(
      '$.payment_data.instrument.credential.token',
      'must be a vt_ token id',
    );
  }
  return {
    tokenId: credential.token,
    credentialType: credential.type as PaymentCredential['credentialType'],
  };
}

export const REASON_CODES = [
  'price_sensitivity',
  'shipping_cost',
  'shipping_speed',
  'product_fit',
  'trust_security',
  'returns_policy',
  'payment_options',
  'comparison',
  'timing_deferred',
  'other',
] as const;

export interface StoredIntentTrace {
  reason_code: (typeof REASON_CODES)[number];
  trace_summary?: string;
  metadata?: Record<string, string | number | boolean>;
}

/**
 * The optional cancel body (docs/acp.md §4). Open object: unknown keys are ignored. An unknown
 * reason_code is stored as `other` (the enum is read leniently); a nested metadata value is 400.
 */
export function parseCancelBody(body: unknown): StoredIntentTrace | null {
  if (body === undefined || body === null) {
    return null;
  }
  if (!isObject(body)) {
    throw checkoutErrors.invalid('$', 'the cancel body must be a JSON object');
  }
  const trace = body.intent_trace;
  if (trace === undefined) {
    return null;
  }
  if (!isObject(trace)) {
    throw checkoutErrors.invalid('$.intent_trace', 'must be an object');
  }
  if (trace.reason_code === undefined) {
    throw checkoutErrors.missing('$.intent_trace.reason_code', 'required');
  }
  if (typeof trace.reason_code !== 'string') {
    throw checkoutErrors.invalid('$.intent_trace.reason_code', 'must be a string');
  }
  const stored: StoredIntentTrace = {
    reason_code: (REASON_CODES as readonly string[]).includes(trace.reason_code)
      ? (trace.reason_code as StoredIntentTrace['reason_code'])
      : 'other',
  };
  if (trace.trace_summary !== undefined) {
    if (typeof trace.trace_summary !== 'string' || trace.trace_summary.length > 500) {
      throw checkoutErrors.invalid(
        '$.intent_trace.trace_summary',
        'must be a string of at most 500 characters',
      );
    }
    stored.trace_summary = trace.trace_summary;
  }
  if (trace.metadata !== undefined) {
    if (!isObject(trace.metadata)) {
      throw checkoutErrors.invalid('$.intent_trace.metadata', 'must be an object');
    }
    const metadata: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(trace.metadata)) {
      const ok =
        typeof value === 'string' ||
        typeof value === 'boolean' ||
        (typeof value === 'number' && Number.isFinite(value));
      if (!ok) {
        const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
          ? `$.intent_trace.metadata.${key}`
          : `$.intent_trace.metadata['${key.replace(/'/g, "\\'")}']`;
        throw checkoutErrors.invalid(path, 'metadata values must be strings, numbers or booleans');
      }
      metadata[key] = value;
    }
    stored.metadata = metadata;
  }
  return stored;
}
