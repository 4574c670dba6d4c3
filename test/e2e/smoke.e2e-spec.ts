import request from 'supertest';

import { startApp, TestApp } from '../support/app';
import { seedWorkspace } from '../support/seed';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('reports health', async () => {
    const res = await request(t.url).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
  });

  it('serves Swagger UI and the live contract, with error shapes on every API operation', async () => {
    const ui = await request(t.url).get('/docs/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
    const doc = await request(t.url).get('/docs/openapi.json').expect(200);
    expect(doc.body.components.schemas).toHaveProperty('AcpError');
    expect(
      doc.body.paths['/acp/checkout_sessions'].post.responses['422'].content['application/json']
        .schema.$ref,
    ).toBe('#/components/schemas/AcpError');
  });

  it('creates a protocol key with an API key', async () => {
    const ws = await seedWorkspace(t);
    const res = await request(t.url)
      .post('/v1/pay/protocol-keys')
      .set('Authorization', `Bearer ${ws.apiKey}`)
      .send({ role: 'merchant', agent_id: ws.seller.id });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^acpk_/);
  });
});
