import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { PersonalDataService } from '../../src/personal-data/personal-data.service';
import type { SignedInPerson } from '../../src/web/signed-in-person';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createQuote, GatewayApp, startGatewayApp } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * A party's lifecycle on the gateway rail (docs/architecture.md "Party lifecycle"): money the
 * gateway captured for a seller that closed in the meantime never settles to it; it is held for a
 * full refund with the reason `seller_unavailable` (CaptureRefunds, docs/architecture.md "Every
 * capture settles or is refunded"), and a Reserve Pay purchase for a suspended seller is refused
 * before its block is debited. Through the gateway simulator.
 */
describe('party lifecycle on the gateway rail', () => {
  let app: GatewayApp;
  let s: SeededWorkspace;
  let b: SeededWorkspace;

  beforeAll(async () => {
    app = await startGatewayApp({ webhooks: false });
    s = await seedWorkspace(app.t);
    b = await seedWorkspace(app.t);
  });
  afterAll(() => app?.close());

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];

  it('holds a capture made after the seller closed for a full refund, and settles nothing', async () => {
    const quoteId = await createQuote(app.t, { seller: s.seller, buyer: b.buyer }, 22_000);
    const base = `/v1/public/pay/quotes/${quoteId}`;
    const started = await request(app.t.url).post(`${base}/checkout`).send();
    expect(started.status).toBe(200);
    const checkout = started.body as { id: string; order_id: string };
    // The person pays in the widget; before the page completes, the seller's last person erases
    // their data and the workspace closes.
    const fields = await app.gw.sim.control.pay(checkout.order_id);
    const person: SignedInPerson = {
      personId: s.personId,
      workspaceId: s.workspaceId,
      workspaceName: 'Test workspace',
      workspaceKind: 'standard',
      email: s.email,
      name: 'Test Person',
      sessionId: 'none',
      csrfToken: 'none',
    };
    expect((await app.t.get(PersonalDataService).erase(person)).workspaceClosed).toBe(true);
    await request(app.t.url)
      .post(`${base}/checkout/${checkout.id}/complete`)
      .send({ ...fields });
    expect(
      await one(
        `SELECT reason_code, amount_paise::int AS amount_paise, quote_id FROM gateway_capture_refunds
          WHERE payment_id = $1`,
        [fields.gateway_payment_id],
      ),
    ).toEqual({ reason_code: 'seller_unavailable', amount_paise: 22_000, quote_id: quoteId });
    expect(
      await one(
        `SELECT count(*)::int AS n FROM payment_intents WHERE seller_workspace_id = $1 AND status = 'settled'`,
        [s.workspaceId],
      ),
    ).toEqual({ n: 0 });
  });
  it('refuses a Reserve Pay purchase for a suspended seller: the block is not debited, nothing moves', async () => {
    const mandateId = await createMandate(
      app.t,
      { workspaceId: b.workspaceId, agentId: b.buyer.id },
      { perPaymentCapPaise: 100_000 },
    );
    const payQuote = (quoteId: string) =>
      request(app.t.url)
        .post(`/v1/pay/quotes/${quoteId}/pay`)
        .set({ ...bearer(b.buyer.credential), 'Idempotency-Key': randomUUID() })
        .send({ mandate_id: mandateId });
    const s2 = await seedWorkspace(app.t);
    const first = await payQuote(
      await createQuote(app.t, { seller: s2.seller, buyer: b.buyer }, 30_000),
    );
    expect(first.status).toBe(200);
    expect(first.body.intent.status).toBe('settled');
    const { block_id: blockId } = await one<{ block_id: string }>(
      `SELECT block_id FROM gateway_reserve_blocks WHERE mandate_id = $1`,
      [mandateId],
    );
    expect((await app.gw.client.getReserveBlock(blockId)).debited).toBe(30_000);

    const quoteId = await createQuote(app.t, { seller: s2.seller, buyer: b.buyer }, 20_000);
    await app.t.db.query(`UPDATE workspaces SET status = 'suspended' WHERE id = $1`, [
      s2.workspaceId,
    ]);
    const refused = await payQuote(quoteId);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('seller_unavailable');
    expect((await app.gw.client.getReserveBlock(blockId)).debited).toBe(30_000);
    expect(
      await one(`SELECT count(*)::int AS n FROM payment_intents WHERE source_id = $1`, [quoteId]),
    ).toEqual({ n: 0 });
    expect(
      await one(
        `SELECT count(*)::int AS n FROM payment_intents WHERE seller_workspace_id = $1 AND status IN ('settled', 'processing')`,
        [s2.workspaceId],
      ),
    ).toEqual({ n: 1 });
  });
});
