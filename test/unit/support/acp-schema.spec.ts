import {
  ACP_DELEGATE_SCHEMA,
  acpValidator,
  contractValidator,
  expectValid,
  isValid,
  officialAcpSchemasAvailable,
  openApiToJsonSchema,
} from '../../support/acp-schema';

/**
 * The ACP response checks themselves: our committed contract is always applied; the official
 * schemas only when ACP_SCHEMA_DIR exists (the global setup prints the one skip line otherwise).
 */
describe('ACP response validation (test/support/acp-schema.ts)', () => {
  /**
   * Satisfies our contract's AcpCheckoutSession, but is no official CheckoutSession: it carries an
   * unknown top-level field, which the official (closed) schema refuses and ours does not.
   */
  const thinSession = {
    id: 'cs_1',
    protocol: { version: '2026-04-17' },
    status: 'ready_for_payment',
    currency: 'inr',
    capabilities: {
      payment: { handlers: [] },
      interventions: { supported: [], required: [], enforcement: 'conditional' },
    },
    line_items: [],
    fulfillment_options: [],
    selected_fulfillment_options: [],
    totals: [],
    messages: [],
    links: [],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    expires_at: '2026-01-01T01:00:00Z',
    locale: 'en-IN',
    timezone: 'Asia/Kolkata',
    metadata: {},
    svc_unknown_field: true,
  };

  it('always checks our contract: AcpError, the checkout session, the delegate payment response', () => {
    expect(isValid('Error', { type: 'invalid_request', code: 'x', message: 'm' })).toBe(true);
    expect(isValid('Error', { type: 'nonsense', code: 'x', message: 'm' })).toBe(false);
    expect(isValid('Error', { type: 'invalid_request', code: 'x', message: 'm', extra: 1 })).toBe(
      false,
    );
    expect(contractValidator('CheckoutSession')(thinSession)).toBe(true);
    expect(contractValidator('CheckoutSession')({ ...thinSession, status: 'open' })).toBe(false);
    // WithOrder is the complete response with its order required.
    expect(contractValidator('CheckoutSessionWithOrder')(thinSession)).toBe(false);
    const order = {
      type: 'order',
      id: 'ord_1',
      checkout_session_id: 'cs_1',
      permalink_url: 'https://example.test/orders/ord_1',
      status: 'confirmed',
    };
    expect(contractValidator('CheckoutSessionWithOrder')({ ...thinSession, order })).toBe(true);
    const dp = contractValidator('DelegatePaymentResponse', ACP_DELEGATE_SCHEMA);
    const metadata = {
      merchant_id: 'agt_1',
      checkout_session_id: 'cs_1',
      mandate_id: 'mdt_1',
      idempotency_key: 'k',
      source: 'svc',
    };
    expect(dp({ id: 'vt_1', created: '2026-01-01T00:00:00Z', metadata })).toBe(true);
    expect(dp({ id: 'vt_1', created: '2026-01-01T00:00:00Z', metadata: { a: 'b' } })).toBe(false);
    expect(dp({ id: 'vt_1', created: 'yesterday', metadata: {} })).toBe(false);
    expect(() => expectValid('Error', { code: 'x' })).toThrow(
      /our contract \(openapi\/openapi\.json/,
    );
  });

  it('refuses a def with no mapping to our contract instead of skipping it', () => {
    expect(() => isValid('NoSuchDef', {})).toThrow(/add one to OWN_CONTRACT/);
  });

  it("turns OpenAPI's nullable into JSON Schema", () => {
    expect(openApiToJsonSchema({ type: 'string', nullable: true, example: 'x' })).toEqual({
      type: ['string', 'null'],
    });
    expect(openApiToJsonSchema({ type: 'string', enum: ['a'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(openApiToJsonSchema({ properties: { p: { $ref: '#/x', nullable: true } } })).toEqual({
      properties: { p: { anyOf: [{ $ref: '#/x' }, { type: 'null' }] } },
    });
  });

  it('applies the official schema too when ACP_SCHEMA_DIR exists, and only our contract otherwise', () => {
    if (officialAcpSchemasAvailable()) {
      expect(acpValidator('CheckoutSession')(thinSession)).toBe(false);
      expect(isValid('CheckoutSession', thinSession)).toBe(false);
      expect(() => expectValid('CheckoutSession', thinSession)).toThrow(
        /the official ACP schema\.agentic_checkout\.json#\/\$defs\/CheckoutSession/,
      );
    } else {
      expect(isValid('CheckoutSession', thinSession)).toBe(true);
    }
  });
});
