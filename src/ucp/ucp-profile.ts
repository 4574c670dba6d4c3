import {
  CREDENTIAL_TYPES,
  HANDLER_ID,
  INSTRUMENT_TYPE,
  RAILS,
  TOKEN_PATTERN,
} from '../checkout/upi-mandate-handler';
import type { AppConfig } from '../config/app.config';

/**
 * What we publish for the Universal Commerce Protocol (docs/ucp.md): the protocol version, the
 * capabilities (checkout, order), the shopping service's REST (/ucp) and MCP (/mcp?protocol=ucp)
 * transports and our UPI mandate payment handler in UCP's handler model. Everything here is built
 * per request from the config, so the URLs follow BASE_URL.
 */

export const UCP_VERSION = '2026-04-08';
export const SHOPPING_SERVICE = 'dev.ucp.shopping';
export const CHECKOUT_CAPABILITY = 'dev.ucp.shopping.checkout';
/** Orders (docs/ucp.md "Orders"): GET /ucp/orders/{id} and order event webhooks. */
export const ORDER_CAPABILITY = 'dev.ucp.shopping.order';

/** A public EC JWK in signing_keys (docs/ucp.md "Orders"). */
export type UcpSigningJwk = Record<string, string> & { kid: string; kty: string };

/**
 * Our UCP signing keys' public halves, set at boot by UcpSigningKeyService (src/ucp/orders): the
 * profile is built per request from the config and these.
 */
let signingKeys: UcpSigningJwk[] = [];

export function setUcpSigningKeys(keys: UcpSigningJwk[]): void {
  signingKeys = keys.map((k) => ({ ...k }));
}

/** The handler's reverse-domain name: the same name the ACP side uses (docs/acp.md §8). */
export const UCP_HANDLER_NAME = 'com.svc.upi_mandate';
/** The handler instance id platforms put in payment.instruments[].handler_id. */
export const UCP_HANDLER_ID = HANDLER_ID;
/** Date of OUR UCP handler documents; bump it when ucpHandlerSchema changes. */
export const UCP_HANDLER_VERSION = '2026-04-08';
export const UCP_INSTRUMENT_TYPE = INSTRUMENT_TYPE;
export const UCP_CREDENTIAL_TYPES: readonly string[] = CREDENTIAL_TYPES;
export const UCP_TOKEN_PATTERN = TOKEN_PATTERN;

export const UCP_PATHS = {
  endpoint: '/ucp',
  /** The MCP binding (src/mcp/ucp/), declared as the service's `mcp` transport. */
  mcpEndpoint: '/mcp?protocol=ucp',
  handlerSpec: '/ucp/handlers/upi_mandate',
  handlerSchema: '/ucp/handlers/upi_mandate/schema.json',
} as const;

const UCP_DEV = `https://ucp.dev/${UCP_VERSION}`;

type Json = Record<string, unknown>;

function environmentOf(config: AppConfig): 'sandbox' | 'production' {
  return config.mode === 'live' ? 'production' : 'sandbox';
}

/** The handler's config: what a platform needs to obtain a credential (business-wide part). */
function handlerConfig(config: AppConfig): Json {
  return {
    environment: environmentOf(config),
    delegate_payment_url: `${config.baseUrl}/acp/agentic_commerce/delegate_payment`,
    credential_type: 'svc_delegated_token',
    rails: [...RAILS],
  };
}

function handlerBase(config: AppConfig): Json {
  return {
    id: UCP_HANDLER_ID,
    version: UCP_HANDLER_VERSION,
    spec: `${config.baseUrl}${UCP_PATHS.handlerSpec}`,
    schema: `${config.baseUrl}${UCP_PATHS.handlerSchema}`,
    available_instruments: [{ type: UCP_INSTRUMENT_TYPE }],
  };
}

/** The handler in the business profile (payment_handler.json business_schema). */
export function businessHandler(config: AppConfig): Json {
  return { ...handlerBase(config), config: handlerConfig(config) };
}

/**
 * The handler in a checkout response (response_schema): the business declaration plus the seller
 * agent the token must be minted for (allowance.merchant_id of delegate_payment).
 */
export function responseHandler(config: AppConfig, merchantId: string): Json {
  return { ...handlerBase(config), config: { ...handlerConfig(config), merchant_id: merchantId } };
}

/** GET /.well-known/ucp: our business profile (discovery/profile_schema.json business_profile). */
export function businessProfile(config: AppConfig): Json {
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        [SHOPPING_SERVICE]: [
          {
            version: UCP_VERSION,
            spec: `${UCP_DEV}/specification/overview`,
            transport: 'rest',
            endpoint: `${config.baseUrl}${UCP_PATHS.endpoint}`,
            schema: `${UCP_DEV}/services/shopping/rest.openapi.json`,
          },
          {
            version: UCP_VERSION,
            spec: `${UCP_DEV}/specification/overview`,
            transport: 'mcp',
            endpoint: `${config.baseUrl}${UCP_PATHS.mcpEndpoint}`,
            schema: `${UCP_DEV}/services/shopping/mcp.openrpc.json`,
          },
        ],
      },
      capabilities: {
        [CHECKOUT_CAPABILITY]: [
          {
            version: UCP_VERSION,
            spec: `${UCP_DEV}/specification/checkout`,
            schema: `${UCP_DEV}/schemas/shopping/checkout.json`,
          },
        ],
        [ORDER_CAPABILITY]: [
          {
            version: UCP_VERSION,
            spec: `${UCP_DEV}/specification/order`,
            schema: `${UCP_DEV}/schemas/shopping/order.json`,
          },
        ],
      },
      payment_handlers: { [UCP_HANDLER_NAME]: [businessHandler(config)] },
    },
    ...(signingKeys.length > 0 ? { signing_keys: signingKeys.map((k) => ({ ...k })) } : {}),
  };
}

/**
 * GET /ucp/handlers/upi_mandate/schema.json: the handler's own JSON Schema (2020-12), one $def per
 * shape the payment handler guide asks for: config, instrument, credential, available instrument.
 */
export function ucpHandlerSchema(config: AppConfig): Json {
  const id = `${config.baseUrl}${UCP_PATHS.handlerSchema}`;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    name: UCP_HANDLER_NAME,
    version: UCP_HANDLER_VERSION,
    title: 'UPI mandate payment handler (UCP)',
    description:
      'Pay a checkout with a one-time delegated token drawn on a person’s UPI mandate. The token is minted by POST /acp/agentic_commerce/delegate_payment and is the credential of the instrument.',
    $defs: {
      config: {
        type: 'object',
        required: ['environment', 'delegate_payment_url', 'credential_type', 'rails'],
        properties: {
          environment: { enum: ['sandbox', 'production'] },
          delegate_payment_url: { type: 'string', format: 'uri' },
          credential_type: { const: 'svc_delegated_token' },
          rails: {
            type: 'array',
            minItems: 1,
            uniqueItems: true,
            items: { enum: [...RAILS] },
          },
          merchant_id: {
            type: 'string',
            pattern: '^agt_[A-Za-z0-9]+$',
            description:
              'In checkout responses only: the seller agent, to be sent as allowance.merchant_id',
          },
        },
      },
      available_instrument: {
        type: 'object',
        required: ['type'],
        properties: { type: { const: UCP_INSTRUMENT_TYPE } },
      },
      credential: {
        type: 'object',
        required: ['type', 'token'],
        properties: {
          type: { enum: [...UCP_CREDENTIAL_TYPES] },
          token: { type: 'string', maxLength: 256, pattern: UCP_TOKEN_PATTERN },
        },
      },
      instrument: {
        type: 'object',
        required: ['id', 'handler_id', 'type', 'credential'],
        properties: {
          id: { type: 'string', description: 'Chosen by the platform' },
          handler_id: { const: UCP_HANDLER_ID },
          type: { const: UCP_INSTRUMENT_TYPE },
          selected: { type: 'boolean' },
          credential: { $ref: '#/$defs/credential' },
        },
      },
    },
  };
}

/** GET /ucp/handlers/upi_mandate: the handler's specification, as a short machine-readable page. */
export function ucpHandlerSpec(config: AppConfig): Json {
  return {
    name: UCP_HANDLER_NAME,
    id: UCP_HANDLER_ID,
    version: UCP_HANDLER_VERSION,
    schema: `${config.baseUrl}${UCP_PATHS.handlerSchema}`,
    participants: {
      business: 'The seller agent whose merchant protocol key calls /ucp',
      platform: 'The buyer agent, holding a buyer protocol key',
    },
    prerequisites:
      'The buyer agent holds a buyer protocol key; the person behind it has (or authorises) a UPI mandate.',
    acquisition: {
      method: 'POST',
      url: `${config.baseUrl}/acp/agentic_commerce/delegate_payment`,
      summary:
        'Mint a one-time token: payment_method {type: svc_mandate, mandate_id?}, allowance {reason: one_time, max_amount (paise), currency: inr, checkout_session_id, merchant_id (config.merchant_id), expires_at}. The 201 body id (vt_…) is the credential token.',
    },
    processing:
      'POST {endpoint}/checkout-sessions/{id}/complete with payment.instruments[0] = {id, handler_id, type: svc_mandate, credential: {type: svc_delegated_token, token}}. The token is redeemed once for the session total; payments above the approval threshold wait for a person.',
    instruments_refused: ['card'],
  };
}
