import { randomUUID } from 'node:crypto';

import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import request from '../support/ucp-contract';
import { PlatformHost, platformProfile, startPlatformHost } from '../support/ucp-platform';
import { expectValidUcp } from '../support/ucp-schema';

/**
 * UCP in the sandbox (docs/ucp.md "Negotiation"): an app in MODE=sandbox fetches a developer's
 * local platform profile from a loopback http URL on any port, and keeps the live rules (https,
 * public addresses) for every other profile URL. The negotiation test in ucp-checkout covers live
 * mode refusing the same loopback URL.
 */
describe('UCP in sandbox mode', () => {
  let t: TestApp;
  let host: PlatformHost;
  let seller: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp({ mode: 'sandbox' });
    host = await startPlatformHost({ '/profile.json': platformProfile() });
    seller = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set('Authorization', `Bearer ${seller.seller.credential}`)
      .send({
        listed: true,
        offers: [
          { sku: 'sku_tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        ],
      })
      .expect(200);
  });
  afterAll(async () => {
    await host.close();
    await t.close();
  });

  const create = (agent: string) =>
    request(t.url)
      .post('/ucp/checkout-sessions')
      .set({
        Authorization: `Bearer ${seller.merchantKey}`,
        'UCP-Agent': agent,
        'Idempotency-Key': randomUUID(),
      })
      .send({ line_items: [{ item: { id: 'sku_tea' }, quantity: 1 }] });

  const sessions = async (): Promise<number> =>
    Number(
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM checkout_sessions WHERE seller_agent_id = $1`,
          [seller.seller.id],
        )
      )[0].n,
    );

  it('a local platform on a loopback http profile URL checks out', async () => {
    expect(t.config.mode).toBe('sandbox');
    const res = await create(host.agent('/profile.json')).expect(201);
    expectValidUcp('checkout', res.body);
    expect(res.body.status).toBe('ready_for_complete');
    expect(host.hits.get('/profile.json')).toBe(1);
    // The same platform named by localhost.
    const local = host.agent('/profile.json').replace('127.0.0.1', 'localhost');
    expect((await create(local).expect(201)).body.ucp.status).toBe('success');
  });

  it.each([
    ['a private address over http', 'profile="http://10.0.0.1:8080/profile.json"'],
    ['a private address over https', 'profile="https://192.168.1.10/profile.json"'],
    ['the metadata address', 'profile="http://169.254.169.254/latest/meta-data"'],
    ['a public host over http', 'profile="http://platform.example/profile.json"'],
  ])('keeps the live rules for %s: 400 invalid_profile_url, nothing created', async (_n, agent) => {
    const before = await sessions();
    const res = await create(agent).expect(400);
    expectValidUcp('error', res.body);
    expect(res.body.messages[0]).toMatchObject({ type: 'error', code: 'invalid_profile_url' });
    expect(await sessions()).toBe(before);
  });
});
