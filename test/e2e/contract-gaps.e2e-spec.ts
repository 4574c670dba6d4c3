import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import request from 'supertest';

import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read by the test
type Json = any;

/**
 * What an integrator found missing on the first day (issue 42): the committed contract and the
 * running app agree on each of them.
 */
const CONTRACT = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'openapi', 'openapi.json'), 'utf8'),
) as {
  info: { license: { name: string; url?: string } };
  servers: { url: string; variables?: Record<string, { default: string }> }[];
  paths: Record<string, Record<string, { responses: Record<string, unknown>; callbacks?: object }>>;
  components: {
    schemas: Record<string, { properties: Record<string, Json>; required?: string[] }>;
    securitySchemes: Record<string, { description: string }>;
  };
};
const schemas = CONTRACT.components.schemas;

/** The schema a property points at, through allOf. */
function refOf(prop: { $ref?: string; allOf?: { $ref: string }[] }): string {
  return (prop.$ref ?? prop.allOf?.[0].$ref ?? '').replace('#/components/schemas/', '');
}

describe('contract gaps (issue 42)', () => {
  let t: TestApp;
  let sandbox: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    // BASE_URL names another address than the one the page is opened on (a proxy, another name).
    sandbox = await startApp({ mode: 'sandbox', baseUrl: 'http://payments.example.test:8080' });
    ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({
        listed: true,
        offers: [{ sku: 'sku_tea', name: 'Assam tea', unit_paise: 45_000, category: 'food.tea' }],
      })
      .expect(200);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('AcpCheckoutSession.order is a typed object: id, checkout_session_id, permalink_url', () => {
    const order = schemas[refOf(schemas.AcpCheckoutSession.properties.order)];
    expect(order.required).toEqual(
      expect.arrayContaining(['id', 'checkout_session_id', 'permalink_url']),
    );
    expect(order.properties.permalink_url).toMatchObject({ type: 'string', format: 'uri' });
  });

  it("a create line item's quantity is optional (default 1), as ACP has it; validation agrees", async () => {
    const item = schemas[refOf(schemas.CreateCheckoutSessionDto.properties.line_items.items)];
    expect(item.required).toEqual(['id']);
    expect(item.properties.quantity).toMatchObject({ type: 'integer', minimum: 1, default: 1 });

    const create = (lineItem: object) =>
      request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(ws.merchantKey, randomUUID()))
        .send({ line_items: [lineItem], currency: 'inr', capabilities: {} });
    const without = await create({ id: 'sku_tea' });
    expect(without.status).toBe(201);
    expect(without.body.line_items[0].quantity).toBe(1);
    expect((await create({ id: 'sku_tea', quantity: 3 })).body.line_items[0].quantity).toBe(3);
    const fraction = await create({ id: 'sku_tea', quantity: 1.5 });
    expect(fraction.status).toBe(400);
    expect(fraction.body).toMatchObject({
      type: 'invalid_request',
      param: '$.line_items[0].quantity',
    });
  });

  it('/.well-known/acp.json is documented, and answers what its schema says', async () => {
    const op = CONTRACT.paths['/.well-known/acp.json']?.get;
    expect(op).toBeDefined();
    const schema = schemas[refOf((op.responses['200'] as Json).content['application/json'].schema)];
    const res = await request(t.url).get('/.well-known/acp.json').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(schema.properties).sort());
    // The contract /docs serves documents it too (no "Undocumented" in Swagger UI).
    const served = await request(t.url).get('/docs/openapi.json').expect(200);
    expect(Object.keys(served.body.paths)).toContain('/.well-known/acp.json');
  });

  it('the AutoPay notice and alert events have schemas, as callbacks of webhook registration', () => {
    expect(schemas.AutopayPreDebitNoticeEvent.properties.type.enum).toEqual([
      'recurring.pre_debit_notice',
    ]);
    expect(schemas.AutopayPostDebitAlertEvent.properties.type.enum).toEqual([
      'recurring.post_debit_alert',
    ]);
    expect(Object.keys(CONTRACT.paths['/v1/webhooks/endpoints'].post.callbacks ?? {})).toEqual(
      expect.arrayContaining(['recurring.pre_debit_notice', 'recurring.post_debit_alert']),
    );
  });

  it('GET /favicon.ico answers an icon, cached, not a 404 JSON', async () => {
    const res = await request(t.url).get('/favicon.ico').buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(String(res.body)).toContain('<svg');
  });

  it('the committed contract names a neutral server; /docs serves this deployment (BASE_URL)', async () => {
    expect(CONTRACT.servers).toEqual([
      expect.objectContaining({
        url: '{baseUrl}',
        variables: { baseUrl: expect.objectContaining({ default: 'http://localhost:3000' }) },
      }),
    ]);
    const served = await request(t.url).get('/docs/openapi.json').expect(200);
    expect(served.body.servers).toEqual([
      { url: t.config.baseUrl, description: 'This deployment (BASE_URL)' },
    ]);
    // The Swagger UI page reads the same document from its init script.
    const init = await request(t.url).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain(`"url": "${t.config.baseUrl}"`);
  });

  it('in sandbox mode, /docs serves the address it was opened on first, then BASE_URL', async () => {
    const served = await request(sandbox.url).get('/docs/openapi.json').expect(200);
    expect(served.body.servers.map((s: { url: string }) => s.url)).toEqual([
      sandbox.url,
      'http://payments.example.test:8080',
    ]);
    // A Host header that is not a plain host is not echoed.
    const odd = await request(sandbox.url)
      .get('/docs/openapi.json')
      .set('Host', 'evil"host')
      .expect(200);
    expect(odd.body.servers.map((s: { url: string }) => s.url)).toEqual([
      'http://payments.example.test:8080',
    ]);
  });

  it('is under a named licence (Apache-2.0) and names each credential by role', () => {
    expect(CONTRACT.info.license).toEqual({
      name: 'Apache-2.0',
      url: 'https://www.apache.org/licenses/LICENSE-2.0',
    });
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
    expect(pkg.license).toBe('Apache-2.0');
    const s = CONTRACT.components.securitySchemes;
    expect(s.merchantProtocolKey.description).toMatch(
      /^Merchant protocol key .*MERCHANT_PROTOCOL_KEY/,
    );
    expect(s.buyerProtocolKey.description).toMatch(/^Buyer protocol key .*BUYER_PROTOCOL_KEY/);
    expect(s.agentCredential.description).toMatch(/SELLER_AGENT_CREDENTIAL/);
    expect(s.apiKey.description).toMatch(/^Workspace API key/);
  });
});
