import request from 'supertest';

import { startApp, TestApp } from '../support/app';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * UCP 2026-04-08 (docs/ucp.md): discovery at /.well-known/ucp, negotiation on UCP-Agent, and the
 * checkout REST binding under /ucp over the same checkout sessions and payment pipeline as ACP.
 * Every UCP body is validated against the official schemas when UCP_SCHEMA_DIR is present.
 */
describe('UCP discovery', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('publishes a public, cacheable business profile with checkout, the REST endpoint and the UPI mandate handler', async () => {
    const res = await request(t.url).get('/.well-known/ucp').expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expectValidUcp('profile', res.body);
    const ucp = res.body.ucp;
    expect(ucp.version).toBe('2026-04-08');
    expect(Object.keys(ucp.capabilities)).toEqual(['dev.ucp.shopping.checkout']);
    expect(ucp.services['dev.ucp.shopping']).toEqual([
      expect.objectContaining({ transport: 'rest', endpoint: `${t.url}/ucp` }),
    ]);
    const [handler] = ucp.payment_handlers['com.svc.upi_mandate'];
    expect(handler).toMatchObject({
      id: 'svc_upi_mandate',
      available_instruments: [{ type: 'svc_mandate' }],
      config: {
        delegate_payment_url: `${t.url}/acp/agentic_commerce/delegate_payment`,
        credential_type: 'svc_delegated_token',
      },
    });
    // Ed25519 receipt keys are not UCP signing keys (ES256): none are published.
    expect(res.body.signing_keys).toBeUndefined();

    const schema = await request(t.url)
      .get(new URL(handler.schema as string).pathname)
      .expect(200);
    expect(schema.body.$defs.instrument.properties.type).toEqual({ const: 'svc_mandate' });
    expect(schema.body.$defs.credential.required).toEqual(['type', 'token']);
    const spec = await request(t.url)
      .get(new URL(handler.spec as string).pathname)
      .expect(200);
    expect(spec.body.name).toBe('com.svc.upi_mandate');
  });
});
