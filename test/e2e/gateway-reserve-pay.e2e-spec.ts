import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ReserveBlockReleaser } from '../../src/gateway/reserve-blocks';
import { MandatesService } from '../../src/mandates/mandates.service';
import { PAYMENT_RAIL, PaymentRail } from '../../src/rails/payment-rail';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createQuote, GatewayApp, startGatewayApp } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Reserve Pay on the gateway rail against the simulator (docs/gateway.md "Reserve Pay"): a
 * `upi_reserve_pay` mandate blocks its cap once (in MODE=test the simulator's control API approves
 * the block as the person would), its payments debit within the block, each ending on a signed
 * receipt; a payment above what is left fails `block_exhausted`; a repeated debit takes nothing
 * twice; when the mandate is revoked or ends, the rest is released, once.
 */
describe('gateway rail: Reserve Pay (block once, debit several times, release the rest)', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    app = await startGatewayApp({ overrides: { webhookDispatchIntervalMs: 100 } });
    ws = await seedWorkspace(app.t);
  });
  afterAll(() => app?.close());

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];

  async function payQuote(mandateId: string, amountPaise: number) {
    const quoteId = await createQuote(app.t, ws, amountPaise);
    const res = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set({ ...bearer(ws.buyer.credential), 'Idempotency-Key': randomUUID() })
      .send({ mandate_id: mandateId });
    expect(res.status).toBe(200);
    return res.body.intent as {
      id: string;
      status: string;
      decline_code: string | null;
      receipt_id: string | null;
    };
  }

  const blockOf = (mandateId: string) =>
    one<{ block_id: string; status: string; amount_paise: string; released_paise: string | null }>(
      `SELECT block_id, status, amount_paise::text, released_paise::text FROM gateway_reserve_blocks WHERE mandate_id = $1`,
      [mandateId],
    );

  it('blocks the cap once, debits several payments within it, refuses more than is left', async () => {
    const mandateId = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { perPaymentCapPaise: 100_000 },
    );
    const first = await payQuote(mandateId, 30_000);
    expect(first).toMatchObject({ status: 'settled', receipt_id: expect.stringMatching(/^rcp_/) });
    const row = await blockOf(mandateId);
    expect(row).toMatchObject({ status: 'active', amount_paise: '100000' });
    // No recurring token: the mandate pays from its block.
    expect(
      await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM gateway_mandate_tokens WHERE mandate_id = $1`,
        [mandateId],
      ),
    ).toEqual({ n: 0 });

    const second = await payQuote(mandateId, 50_000);
    expect(second.status).toBe('settled');
    expect((await app.gw.client.getReserveBlock(row.block_id)).debited).toBe(80_000);

    const tooMuch = await payQuote(mandateId, 30_000);
    expect(tooMuch).toMatchObject({ status: 'failed', decline_code: 'block_exhausted' });
    expect((await app.gw.client.getReserveBlock(row.block_id)).debited).toBe(80_000);

    const rest = await payQuote(mandateId, 20_000);
    expect(rest).toMatchObject({ status: 'settled', receipt_id: expect.stringMatching(/^rcp_/) });
    const block = await app.gw.client.getReserveBlock(row.block_id);
    expect(block).toMatchObject({ amount: 100_000, debited: 100_000, status: 'active' });

    // Each debit is a captured payment on its own order, receipt = our intent id, once.
    for (const intent of [first, second, rest]) {
      const orders = await app.gw.client.findOrdersByReceipt(intent.id);
      expect(orders).toHaveLength(1);
      const payments = await app.gw.client.listOrderPayments(orders[0].id);
      expect(payments.filter((p) => p.status === 'captured')).toHaveLength(1);
    }
    // Asking the rail again for a settled intent takes nothing more.
    const rail = app.t.get<PaymentRail>(PAYMENT_RAIL as never);
    const again = await rail.debit({
      intentId: first.id,
      amountPaise: 30_000,
      mandateId,
      source: { kind: 'quote', id: 'ignored' },
      description: 'repeat',
    });
    expect(again.status).toBe('succeeded');
    expect((await app.gw.client.getReserveBlock(row.block_id)).debited).toBe(100_000);
    // The same block is used for every payment of the mandate: one block in the simulator for it.
    const settled = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM payment_intents WHERE mandate_id = $1 AND status = 'settled' AND receipt_id IS NOT NULL`,
      [mandateId],
    );
    expect(settled.n).toBe(3);
  });

  it('releases what is left when the mandate is revoked or ends, once', async () => {
    const releaser = app.t.get(ReserveBlockReleaser);
    const revoked = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { perPaymentCapPaise: 50_000 },
    );
    expect((await payQuote(revoked, 10_000)).status).toBe('settled');
    const ended = await createMandate(
      app.t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { perPaymentCapPaise: 70_000 },
    );
    expect((await payQuote(ended, 5_000)).status).toBe('settled');

    // Nothing to release while the mandates are live.
    await releaser.releaseEnded();
    expect((await blockOf(revoked)).status).toBe('active');

    await app.t
      .get(MandatesService)
      .revoke(ws.workspaceId, revoked, { type: 'person', id: ws.personId });
    await app.t.db.query(`UPDATE mandates SET valid_until = $2 WHERE id = $1`, [
      ended,
      new Date(app.t.clock.now().getTime() - 1000),
    ]);
    await releaser.releaseEnded();
    expect(await blockOf(revoked)).toMatchObject({ status: 'released', released_paise: '40000' });
    expect(await blockOf(ended)).toMatchObject({ status: 'released', released_paise: '65000' });
    const gw = await app.gw.client.getReserveBlock((await blockOf(revoked)).block_id);
    expect(gw).toMatchObject({ status: 'released', debited: 10_000, released: 40_000 });
    // A second sweep finds nothing more to do.
    expect(await releaser.releaseEnded()).toBe(0);
  });
});
