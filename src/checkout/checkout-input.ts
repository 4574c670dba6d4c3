import { AppError } from '../common/errors/app-error';
import { checkoutErrors } from './checkout.errors';
import type { CheckoutSession, StoredFulfillmentDetails } from './checkout-session.entity';
import type { AddressDto, FulfillmentDetailsDto } from './dto/checkout-request.parts';
import type { PaymentDataDto } from './dto/complete-checkout-session.dto';
import { CREDENTIAL_TYPES, HANDLER_ID, INSTRUMENT_TYPE } from './upi-mandate-handler';

/**
 * Hand-checked parts of ACP request bodies: the ones the schema leaves open (payment_data.instrument)
 * and the cancel body, read leniently (it never refuses; see parseCancelBody). Errors of
 * parsePaymentData name the field as a JSONPath and, like the ValidationPipe's, are not stored
 * against the Idempotency-Key.
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

/** Bounds of a stored intent trace (docs/acp.md §4): what lies beyond them is cut or dropped. */
export const TRACE_LIMITS = {
  /** trace_summary is cut to this many characters (Unicode code points, as JSON Schema counts). */
  summaryChars: 500,
  /** At most this many metadata entries are kept, the first ones in body order. */
  metadataEntries: 20,
  /** A metadata key longer than this is dropped with its value. */
  metadataKeyChars: 64,
  /** A string metadata value is cut to this many characters. */
  metadataValueChars: 200,
} as const;

/** The first `max` code points of `s` (never splits a surrogate pair). */
function cut(s: string, max: number): string {
  if (s.length <= max) {
    return s;
  }
  let out = '';
  let n = 0;
  for (const ch of s) {
    if (n === max) {
      break;
    }
    out += ch;
    n += 1;
  }
  return out;
}

/**
 * The optional cancel body (docs/acp.md §4), read so that a trace can never make a cancel fail:
 * the trace is analytics, the cancel is what the caller asked for. A body or `intent_trace` that
 * is not a JSON object is dropped (null); a missing, non-string or unknown `reason_code` is stored
 * as `other`; `trace_summary` is cut to TRACE_LIMITS.summaryChars (dropped if not a string);
 * `metadata` keeps at most TRACE_LIMITS.metadataEntries flat entries (string values cut, finite
 * numbers and booleans as they are) and drops nested, null and array values, over-long keys and
 * a non-object metadata; unknown fields are dropped. So the stored trace is small and flat,
 * whatever was sent within the body limits (BODY_LIMIT, hostile-input.ts).
 */
export function parseCancelBody(body: unknown): StoredIntentTrace | null {
  if (!isObject(body) || !isObject(body.intent_trace)) {
    return null;
  }
  const trace = body.intent_trace;
  const stored: StoredIntentTrace = {
    reason_code:
      typeof trace.reason_code === 'string' &&
      (REASON_CODES as readonly string[]).includes(trace.reason_code)
        ? (trace.reason_code as StoredIntentTrace['reason_code'])
        : 'other',
  };
  if (typeof trace.trace_summary === 'string') {
    stored.trace_summary = cut(trace.trace_summary, TRACE_LIMITS.summaryChars);
  }
  if (isObject(trace.metadata)) {
    const metadata: Record<string, string | number | boolean> = {};
    let kept = 0;
    for (const [key, value] of Object.entries(trace.metadata)) {
      if (kept === TRACE_LIMITS.metadataEntries) {
        break;
      }
      if (key.length > TRACE_LIMITS.metadataKeyChars) {
        continue;
      }
      if (typeof value === 'string') {
        metadata[key] = cut(value, TRACE_LIMITS.metadataValueChars);
      } else if (
        typeof value === 'boolean' ||
        (typeof value === 'number' && Number.isFinite(value))
      ) {
        metadata[key] = value;
      } else {
        continue;
      }
      kept += 1;
    }
    stored.metadata = metadata;
  }
  return stored;
}

/** The fields of an ACP `Address`, compared by addressChanged. */
const ADDRESS_FIELDS = [
  'name',
  'line_one',
  'line_two',
  'city',
  'state',
  'country',
  'postal_code',
  'company',
] as const;

/** Trimmed, inner whitespace collapsed, case folded; absent is the empty string. */
function addressPart(a: AddressDto, field: (typeof ADDRESS_FIELDS)[number]): string {
  return (a[field] ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * Whether `sent` is another address than `recorded` (docs/acp.md "Accepted extensions", ACP PR
 * #200). Spelling differences in case and spacing are the same address; any other difference is a
 * change. No address sent is no change.
 */
export function addressChanged(recorded: AddressDto, sent: AddressDto | undefined): boolean {
  if (sent === undefined) {
    return false;
  }
  return ADDRESS_FIELDS.some((f) => addressPart(recorded, f) !== addressPart(sent, f));
}

/**
 * The address the session holds (`fulfillment_details.address`, sent on create or update): the one
 * the session was priced with. Digital delivery costs the same for any address, but the PR's rule
 * holds all the same: a complete naming another one is refused. Null when none was sent.
 */
export function pricedAddress(session: CheckoutSession): AddressDto | null {
  return session.fulfillmentDetails?.address ?? null;
}

/**
 * `fulfillment_details` applied to what the session holds (docs/acp.md "Accepted extensions"), as
 * create, update and complete do: each field sent (name, phone_number, email, address) replaces
 * the one held, a field not sent is kept (the 2026-04-17 schema allows no null, so nothing is
 * removed). Nothing sent leaves the details as they are; the result is a copy of plain data.
 */
export function applyFulfillmentDetails(
  held: StoredFulfillmentDetails | null,
  sent: FulfillmentDetailsDto | undefined,
): StoredFulfillmentDetails | null {
  if (sent === undefined) {
    return held;
  }
  const next: StoredFulfillmentDetails = { ...(held ?? {}) };
  if (sent.name !== undefined) {
    next.name = sent.name;
  }
  if (sent.phone_number !== undefined) {
    next.phone_number = sent.phone_number;
  }
  if (sent.email !== undefined) {
    next.email = sent.email;
  }
  if (sent.address !== undefined) {
    const a = sent.address;
    next.address = {
      name: a.name,
      line_one: a.line_one,
      ...(a.line_two !== undefined ? { line_two: a.line_two } : {}),
      city: a.city,
      state: a.state,
      country: a.country,
      postal_code: a.postal_code,
      ...(a.company !== undefined ? { company: a.company } : {}),
    };
  }
  return Object.keys(next).length === 0 ? held : next;
}

/**
 * `fulfillment_details` on complete (docs/acp.md "Accepted extensions", ACP PR #200): refused with
 * 409 `fulfillment_price_changed` when its address is not the one the session was priced with, as
 * the PR asks, so the agent updates first and the buyer reviews; otherwise accepted (and applied,
 * applyFulfillmentDetails). Only a session holding an address can conflict (pricedAddress); an
 * equal address (case and spacing aside) or contact details alone proceed.
 */
export function checkCompleteFulfillment(
  session: CheckoutSession,
  details: FulfillmentDetailsDto | undefined,
): void {
  const priced = pricedAddress(session);
  if (priced !== null && addressChanged(priced, details?.address)) {
    throw new AppError(
      409,
      'invalid_request',
      'fulfillment_price_changed',
      'The fulfillment address differs from the one this checkout session was priced with. Update the session with the new address, let the buyer review it, then complete.',
      '$.fulfillment_details.address',
    );
  }
}
