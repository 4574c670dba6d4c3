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
