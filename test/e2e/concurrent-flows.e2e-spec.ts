import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { bearer } from '../factories/intent.factory';
import { insertMandate } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Full ACP flows (create → delegate_payment → complete) running at once for shared buyers: the
 * lock order (docs/architecture.md) leaves no cycle for Postgres to break, so no request fails
 * and Postgres records no deadlock for this database.
 */
describe('concurrent full flows for shared buyers', () => {
  let t: TestApp;
  let seller: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp({ dailyCapPaise: 1_000_000_000 });
    seller = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${seller.seller.id}/listing`)
      .set(bearer(seller.seller.credential))
      .send({
        listed: true,
        offers: [{ sku: 'tea', name: 'Assam tea', unit_paise: 45_000, category: 'grocery.tea' }],
      })
      .expect(200);
  });
  afterAll(() => t.close());

  async function deadlocks(): Promise<number> {
    const [row] = await t.db.query<{ n: string }[]>(
      `SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Number(row.n);
  }

  async function flow(
    buyer: SeededWorkspace,
    mandateId: string,
  ): Promise<{ statuses: number[]; sessionId: string }> {
    const statuses: number[] = [];
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(seller.merchantKey, randomUUID()))
      .send({ line_items: [{ id: 'tea', quantity: 1 }], currency: 'inr', capabilities: {} });
    statuses.push(created.status);
    const sessionId = created.body.id as string;
    const delegated = await request(t.url)
      .post('/acp/agentic_commerce/delegate_payment')
      .set(acpHeaders(buyer.buyerKey, randomUUID()))
      .send({
        payment_method: { type: 'svc_mandate', mandate_id: mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: 45_000,
          currency: 'inr',
          checkout_session_id: sessionId,
          merchant_id: seller.seller.id,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      });
    statuses.push(delegated.status);
    const completed = await request(t.url)
      .post(`/acp/checkout_sessions/${sessionId}/complete`)
      .set(acpHeaders(seller.merchantKey, randomUUID()))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: {
            type: 'svc_mandate',
            credential: { type: 'svc_delegated_token', token: delegated.body.id },
          },
        },
      });
    statuses.push(completed.status);
    return { statuses, sessionId };
  }

  it('completes every flow with no 5xx, one settled intent per session, and no deadlock', async () => {
    const buyers = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const ws = await seedWorkspace(t);
        return { ws, mandateId: await insertMandate(t, ws, { payeeAgentIds: [seller.seller.id] }) };
      }),
    );
    const before = await deadlocks();
    const runs = await Promise.all(
      Array.from({ length: 36 }, (_, i) =>
        flow(buyers[i % buyers.length].ws, buyers[i % buyers.length].mandateId),
      ),
    );
    for (const r of runs) {
      expect(r.statuses).toEqual([201, 201, 200]);
    }
    const sessions = runs.map((r) => r.sessionId);
    const rows = await t.db.query<{ status: string; intents: number; receipts: number }[]>(
      `SELECT s.status, count(i.id)::int AS intents, count(i.receipt_id)::int AS receipts
         FROM checkout_sessions s LEFT JOIN payment_intents i ON i.source_id = s.id AND i.status = 'settled'
        WHERE s.id = ANY($1) GROUP BY s.id, s.status`,
      [sessions],
    );
    expect(rows).toHaveLength(36);
    expect(rows.every((r) => r.status === 'completed' && r.intents === 1 && r.receipts === 1)).toBe(
      true,
    );
    // Statistics reach pg_stat_database when a backend's transaction ends; give them a moment.
    await new Promise((r) => setTimeout(r, 600));
    expect(await deadlocks()).toBe(before);
  });
});
