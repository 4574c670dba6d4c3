import { isEmail } from 'class-validator';

import { MAX_REQUESTED_QUANTITY } from '../checkout/checkout-pricing';
import type { CompleteCheckoutSessionDto } from '../checkout/dto/complete-checkout-session.dto';
import type { CreateCheckoutSessionDto } from '../checkout/dto/create-checkout-session.dto';
import type { UpdateCheckoutSessionDto } from '../checkout/dto/update-checkout-session.dto';
import { ucpErrors } from './ucp-errors';
import {
  UCP_CREDENTIAL_TYPES,
  UCP_HANDLER_ID,
  UCP_INSTRUMENT_TYPE,
  UCP_TOKEN_PATTERN,
} from './ucp-profile';

/**
 * UCP request bodies (schemas/shopping/checkout.json with its ucp_request rules) checked and
 * turned into the ACP requests CheckoutService and CheckoutCompletionService take
 * (docs/ucp.md "Requests"). Every refusal is a 400 UcpInputError naming the UCP JSONPath; it
 * is thrown before any service runs, so nothing is written. UCP bodies are open: keys we do not
 * use are accepted and ignored.
 */

/** Same bounds as the ACP request (src/checkout/dto). */
const MAX_LINE_ITEMS = 100;
const MAX_SKU_CHARS = 256;
const BUYER_LIMITS = { email: 320, first_name: 200, last_name: 200, phone_number: 40 } as const;
const TOKEN = new RegExp(UCP_TOKEN_PATTERN);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function body(raw: unknown): Json {
  if (raw === undefined) {
    return {};
  }
  if (!isObject(raw)) {
    throw ucpErrors.invalid('$', 'the body must be a JSON object');
  }
  return raw;
}

interface AcpItem {
  id: string;
  quantity: number;
}

function lineItems(raw: unknown): AcpItem[] {
  if (raw === undefined) {
    throw ucpErrors.missing('$.line_items', 'at least one line item is required');
  }
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_LINE_ITEMS) {
    throw ucpErrors.invalid(
      '$.line_items',
      `must be an array of 1 to ${MAX_LINE_ITEMS} line items`,
    );
  }
  return raw.map((li, i) => {
    const at = `$.line_items[${i}]`;
    if (!isObject(li)) {
      throw ucpErrors.invalid(at, 'must be an object');
    }
    if (!isObject(li.item)) {
      throw ucpErrors.missing(`${at}.item`, 'an object with the item id');
    }
    const id = li.item.id;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_SKU_CHARS) {
      throw ucpErrors.invalid(
        `${at}.item.id`,
        `must be a published SKU (1–${MAX_SKU_CHARS} chars)`,
      );
    }
    const quantity = li.quantity;
    if (
      typeof quantity !== 'number' ||
      !Number.isInteger(quantity) ||
      quantity < 1 ||
      quantity > MAX_REQUESTED_QUANTITY
    ) {
      throw ucpErrors.invalid(
        `${at}.quantity`,
        `must be an integer from 1 to ${MAX_REQUESTED_QUANTITY}`,
      );
    }
    if (li.id !== undefined && typeof li.id !== 'string') {
      throw ucpErrors.invalid(`${at}.id`, 'must be a string');
    }
    return { id, quantity };
  });
}

interface AcpBuyer {
  email: string;
  first_name?: string;
  last_name?: string;
  phone_number?: string;
}

/** UCP's buyer is all optional; ours needs an email once a buyer is given (docs/ucp.md). */
function buyer(raw: unknown): AcpBuyer | undefined {
  if (raw === undefined) {
    return undefined;
  }
  if (!isObject(raw)) {
    throw ucpErrors.invalid('$.buyer', 'must be an object');
  }
  const out: Json = {};
  for (const [key, max] of Object.entries(BUYER_LIMITS)) {
    const v = raw[key];
    if (v === undefined) {
      continue;
    }
    if (typeof v !== 'string' || v.length > max) {
      throw ucpErrors.invalid(`$.buyer.${key}`, `must be a string of at most ${max} characters`);
    }
    out[key] = v;
  }
  if (Object.keys(out).length === 0) {
    return undefined;
  }
  if (out.email === undefined) {
    throw ucpErrors.missing('$.buyer.email', 'this business keeps a buyer only with an email');
  }
  if (!isEmail(out.email)) {
    throw ucpErrors.invalid('$.buyer.email', 'must be an email address');
  }
  return out as unknown as AcpBuyer;
}

/** Open objects UCP allows on create and update: checked to be objects, not used. */
function openObjects(b: Json, keys: readonly string[]): void {
  for (const key of keys) {
    if (b[key] !== undefined && !isObject(b[key])) {
      throw ucpErrors.invalid(`$.${key}`, 'must be an object');
    }
  }
}

const ACCEPTED_OBJECTS = ['context', 'signals', 'attribution', 'payment'] as const;

export function parseUcpCreate(raw: unknown): CreateCheckoutSessionDto {
  const b = body(raw);
  const items = lineItems(b.line_items);
  const who = buyer(b.buyer);
  openObjects(b, ACCEPTED_OBJECTS);
  const acp = {
    line_items: items,
    currency: 'inr',
    capabilities: {},
    ...(who ? { buyer: who } : {}),
  };
  return acp;
}

/**
 * PUT replaces the line items (required, like UCP's update). A buyer left out keeps the stored
 * one (docs/ucp.md "Deviations": our sessions cannot forget a buyer).
 */
export function parseUcpUpdate(raw: unknown, pathId: string): UpdateCheckoutSessionDto {
  const b = body(raw);
  if (b.id !== undefined && b.id !== pathId) {
    throw ucpErrors.invalid('$.id', 'differs from the session id in the path');
  }
  const items = lineItems(b.line_items);
  const who = buyer(b.buyer);
  openObjects(b, ACCEPTED_OBJECTS);
  const acp = { line_items: items, ...(who ? { buyer: who } : {}) };
  return acp;
}

/** The instrument a complete pays with: the one marked selected, or the only one. */
function chosenInstrument(payment: unknown): { instrument: Json; at: string } {
  if (payment === undefined) {
    throw ucpErrors.missing('$.payment', 'payment.instruments with a svc_upi_mandate instrument');
  }
  if (!isObject(payment)) {
    throw ucpErrors.invalid('$.payment', 'must be an object');
  }
  const list = payment.instruments;
  if (!Array.isArray(list) || list.length === 0) {
    throw ucpErrors.missing('$.payment.instruments', 'one svc_upi_mandate instrument');
  }
  list.forEach((instrument, i) => {
    if (!isObject(instrument)) {
      throw ucpErrors.invalid(`$.payment.instruments[${i}]`, 'must be an object');
    }
  });
  const selected = list.flatMap((inst, i) => ((inst as Json).selected === true ? [i] : []));
  if (selected.length > 1) {
    throw ucpErrors.invalid('$.payment.instruments', 'more than one instrument is selected');
  }
  if (selected.length === 0 && list.length > 1) {
    throw ucpErrors.invalid('$.payment.instruments', 'mark the instrument to pay with selected');
  }
  const index = selected[0] ?? 0;
  return { instrument: list[index] as Json, at: `$.payment.instruments[${index}]` };
}

/** The credential of our handler's instrument, as ACP's payment_data (parsePaymentData's input). */
export function parseUcpComplete(raw: unknown): CompleteCheckoutSessionDto {
  const b = body(raw);
  const { instrument, at } = chosenInstrument(b.payment);
  if (typeof instrument.type !== 'string') {
    throw ucpErrors.missing(`${at}.type`, `must be ${UCP_INSTRUMENT_TYPE}`);
  }
  if (instrument.type !== UCP_INSTRUMENT_TYPE) {
    throw ucpErrors.unsupportedInstrument(`${at}.type`, instrument.type);
  }
  if (instrument.handler_id !== UCP_HANDLER_ID) {
    throw ucpErrors.unsupportedHandler(`${at}.handler_id`);
  }
  const credential = instrument.credential;
  if (credential === undefined) {
    throw ucpErrors.missing(`${at}.credential`, 'the delegated token from delegate_payment');
  }
  if (!isObject(credential)) {
    throw ucpErrors.invalid(`${at}.credential`, 'must be an object');
  }
  if (typeof credential.type !== 'string' || !UCP_CREDENTIAL_TYPES.includes(credential.type)) {
    throw ucpErrors.invalid(
      `${at}.credential.type`,
      `must be one of ${UCP_CREDENTIAL_TYPES.join(', ')}`,
    );
  }
  const token = credential.token;
  if (typeof token !== 'string' || token.length > 256 || !TOKEN.test(token)) {
    throw ucpErrors.invalid(
      `${at}.credential.token`,
      'must be the vt_… id that delegate_payment returned',
    );
  }
  openObjects(b, ['signals', 'attribution']);
  const acp = {
    payment_data: {
      handler_id: UCP_HANDLER_ID,
      instrument: { type: UCP_INSTRUMENT_TYPE, credential: { type: credential.type, token } },
    },
  };
  return acp;
}
