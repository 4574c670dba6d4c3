import type { AppConfig } from '../config/app.config';

/** Our only ACP payment handler (docs/acp.md §8). */
export const HANDLER_ID = 'svc_upi_mandate';
/** Date of OUR handler spec (not the ACP version); bump it when the documents below change. */
export const HANDLER_VERSION = '2026-04-17';
export const INSTRUMENT_TYPE = 'svc_mandate';
/** `spt` is accepted too: the generic name ACP handlers use for a delegate_payment token (docs/acp.md §5). */
export const CREDENTIAL_TYPES = ['svc_delegated_token', 'spt'] as const;
export const TOKEN_PATTERN = '^vt_[A-Za-z0-9]+$';
export const RAILS = ['upi_reserve_pay', 'upi_otm'] as const;

export const HANDLER_PATHS = {
  spec: '/acp/handlers/upi_mandate',
  configSchema: '/acp/handlers/upi_mandate/config.schema.json',
  instrumentSchema: '/acp/handlers/upi_mandate/instrument.schema.json',
} as const;

export type PaymentHandlerJson = Record<string, unknown>;

function environmentOf(config: AppConfig): 'sandbox' | 'production' {
  return config.mode === 'live' ? 'production' : 'sandbox';
}

/** The handler advertised in every session's capabilities.payment.handlers[]. */
export function upiMandateHandler(config: AppConfig, merchantId: string): PaymentHandlerJson {
  return {
    id: HANDLER_ID,
    name: 'com.svc.upi_mandate',
    display_name: 'UPI mandate',
    version: HANDLER_VERSION,
    spec: `${config.baseUrl}${HANDLER_PATHS.spec}`,
    requires_delegate_payment: true,
    requires_pci_compliance: false,
    psp: 'svc',
    config_schema: `${config.baseUrl}${HANDLER_PATHS.configSchema}`,
    instrument_schemas: [`${config.baseUrl}${HANDLER_PATHS.instrumentSchema}`],
    config: {
      merchant_id: merchantId,
      psp: 'svc',
      environment: environmentOf(config),
      delegate_payment_url: `${config.baseUrl}/acp/agentic_commerce/delegate_payment`,
      instrument_type: INSTRUMENT_TYPE,
      credential_type: 'svc_delegated_token',
      rails: [...RAILS],
    },
    display_order: 0,
  };
}

/** JSON Schema (2020-12) of the handler's `config` object. */
export function configSchema(config: AppConfig): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${config.baseUrl}${HANDLER_PATHS.configSchema}`,
    title: 'svc_upi_mandate handler config',
    description:
      'Configuration of the com.svc.upi_mandate payment handler, as found in CheckoutSession.capabilities.payment.handlers[].config.',
    type: 'object',
    additionalProperties: false,
    required: [
      'merchant_id',
      'psp',
      'environment',
      'delegate_payment_url',
      'instrument_type',
      'credential_type',
      'rails',
    ],
    properties: {
      merchant_id: {
        type: 'string',
        maxLength: 256,
        pattern: '^agt_[A-Za-z0-9]+$',
        description: 'The seller agent; use it as allowance.merchant_id in delegate_payment',
      },
      psp: { const: 'svc', description: 'The PSP that mints and redeems the delegated token' },
      environment: { enum: ['sandbox', 'production'], description: 'sandbox: no money moves' },
      delegate_payment_url: {
        type: 'string',
        format: 'uri',
        description: 'Where a buyer agent mints a vt_ token',
      },
      instrument_type: { const: INSTRUMENT_TYPE },
      credential_type: {
        const: 'svc_delegated_token',
        description: 'The preferred credential type; spt is accepted too',
      },
      rails: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { enum: [...RAILS] },
        description: 'UPI rails a mandate behind the token may use',
      },
    },
  };
}

/** JSON Schema (2020-12) of payment_data.instrument for this handler. */
export function instrumentSchema(config: AppConfig): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${config.baseUrl}${HANDLER_PATHS.instrumentSchema}`,
    title: 'svc_upi_mandate payment instrument',
    description:
      'payment_data.instrument in CheckoutSessionCompleteRequest when payment_data.handler_id is svc_upi_mandate.',
    type: 'object',
    required: ['type', 'credential'],
    properties: {
      type: { const: INSTRUMENT_TYPE },
      credential: {
        type: 'object',
        required: ['type', 'token'],
        properties: {
          type: { enum: [...CREDENTIAL_TYPES] },
          token: {
            type: 'string',
            pattern: TOKEN_PATTERN,
            description: 'The delegated token id returned by delegate_payment (201 {id})',
          },
        },
      },
    },
    examples: [
      { type: INSTRUMENT_TYPE, credential: { type: 'svc_delegated_token', token: 'vt_01HXYZabc' } },
    ],
  };
}
