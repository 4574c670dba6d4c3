import { commonErrors } from '../common/errors/app-error';
import { delegatePaymentErrors } from './delegate-payment.errors';

/** Every property of the official PaymentMethodCard other than `type` and `metadata`. */
const CARD_FIELDS = [
  'card_number_type',
  'number',
  'exp_month',
  'exp_year',
  'name',
  'cvc',
  'cryptogram',
  'eci_value',
  'checks_performed',
  'iin',
  'display_card_funding_type',
  'display_wallet_type',
  'display_brand',
  'display_last4',
  'virtual',
];
const SVC_MANDATE_FIELDS = new Set(['type', 'mandate_id', 'metadata']);
const MANDATE_ID = /^mdt_[A-Za-z0-9]{1,64}$/;

export interface SvcMandateMethod {
  mandateId: string | null;
}

function fieldPath(key: string): string {
  const k = key.slice(0, 64);
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)
    ? `$.payment_method.${k}`
    : `$.payment_method['${k.replace(/'/g, "\\'")}']`;
}

function isStringMap(v: unknown): boolean {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === 'string')
  );
}

/**
 * Our overlay of DelegatePaymentRequest.payment_method (docs/acp.md §6, Deviations): oneOf
 * [PaymentMethodCard, PaymentMethodSvcMandate]. Anything card-like is refused with invalid_card
 * before any other check looks at it, so card data never reaches a message, a log line or a row;
 * any other type is invalid_card too. A svc_mandate object is closed:
 * {type, mandate_id?, metadata?}.
 */
export function parsePaymentMethod(raw: Record<string, unknown>): SvcMandateMethod {
  if (
    raw.type === 'card' ||
    CARD_FIELDS.some((f) => Object.prototype.hasOwnProperty.call(raw, f))
  ) {
    throw delegatePaymentErrors.cardRefused();
  }
  if (raw.type !== 'svc_mandate') {
    throw delegatePaymentErrors.unsupportedMethod();
  }
  const unknown = Object.keys(raw).find((k) => !SVC_MANDATE_FIELDS.has(k));
  if (unknown !== undefined) {
    throw commonErrors.invalid(fieldPath(unknown), `Unknown field ${fieldPath(unknown)}`);
  }
  if (
    raw.mandate_id !== undefined &&
    (typeof raw.mandate_id !== 'string' || !MANDATE_ID.test(raw.mandate_id))
  ) {
    throw commonErrors.invalid(
      '$.payment_method.mandate_id',
      '$.payment_method.mandate_id must be a mandate id (mdt_…)',
    );
  }
  if (raw.metadata !== undefined && !isStringMap(raw.metadata)) {
    throw commonErrors.invalid(
      '$.payment_method.metadata',
      '$.payment_method.metadata must be an object of strings',
    );
  }
  return { mandateId: raw.mandate_id ?? null };
}
