import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { GatewayRepository } from '../../src/rails/gateway/gateway.repository';
import type { GatewayWebhookEvent } from '../../src/rails/gateway/gateway-client.types';
import { webhookSignature } from '../../src/rails/gateway/gateway-signatures';
import {
  PAYMENT_RAIL,
  PaymentRail,
  RailDebitRequest,
  RailResult,
} from '../../src/rails/payment-rail';
import { SettlementsService } from '../../src/settlements/settlements.service';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { TEST_GATEWAY_KEYS } from '../support/gateway';
import { createQuote, GatewayApp, startGatewayApp } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Never backwards (issue 21 item 3, src/rails/gateway/gateway-states.ts): every state the gateway drives
 * moves only forward along its one documented order, whatever order its webhooks, our own reads
 * and API answers arrive in. For each entity the simulator's own events (never delivered by it:
 * no webhook URL) are signed and posted here in EVERY order, each order on a fresh entity, and the
 * end state is checked in the database and through the API; a move backwards is answered 200
 * `no_change`.
 */
describe('gateway events in every order', () => {
  let app: GatewayApp;
  let ws: SeededWorkspace;
  let rail: PaymentRail;

  beforeAll(async () => {
    app = await startGatewayApp({ overrides: { runWorkers: false }, webhooks: false });
    ws = await seedWorkspace(app.t);
    rail = app.t.get<PaymentRail>(PAYMENT_RAIL as never);
  });
  afterAll(() => app?.close());
  afterEach(() => {
    jest.restoreAllMocks();
    app.gw.sim.control.refundMode('processed');
  });

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await app.t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[] = []) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  type Event = { name: string; body: GatewayWebhookEvent };
  type Answer = { status: number; outcome: string };

  /** The simulator's events whose payload matches, by event name (oldest first). */
  function simEvents(match: (e: GatewayWebhookEvent) => boolean): Map<string, GatewayWebhookEvent> {
    const out = new Map<string, GatewayWebhookEvent>();
    for (const e of app.gw.sim.control.webhookEvents()) {
      const body = e.body as GatewayWebhookEvent;
      if (match(body) && !out.has(body.event)) {
        out.set(body.event, body);
      }
    }
    return out;
  }

  /** Signs and posts one event under a fresh event id, as the gateway would. */
  async function post(body: GatewayWebhookEvent): Promise<Answer> {
    const raw = JSON.stringify(body);
    const res = await request(app.t.url)
      .post('/v1/webhooks/gateway')
      .set({
        'Content-Type': 'application/json',
        'X-Gateway-Signature': webhookSignature(raw, TEST_GATEWAY_KEYS.webhookSecret),
        'X-Gateway-Event-Id': `evt_order${randomUUID().replace(/-/g, '').slice(0, 16)}`,
      })
      .send(raw);
    return { status: res.status, outcome: (res.body as { outcome: string }).outcome };
  }

  async function deliver(events: Event[], order: string[]): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (const name of order) {
      answers.push(await post((events.find((e) => e.name === name) as Event).body));
    }
    return answers;
  }

  /** The buyer agent pays the quote under the mandate; returns the intent. */
  async function payUnderMandate(mandateId: string, amountPaise: number) {
    const quoteId = await createQuote(app.t, ws, amountPaise);
    const res = await request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential))
      .send({ mandate_id: mandateId });
    expect(res.status).toBe(200);
    return { quoteId, intentId: res.body.intent.id as string };
  }

  const intentRow = (id: string) =>
    one<{ status: string; decline_code: string | null }>(
      'SELECT status, decline_code FROM payment_intents WHERE id = $1',
      [id],
    );

  describe('mandate token: initiated → confirmed → cancelled (initiated → rejected → cancelled)', () => {
    /** A confirmed token (registered and approved as the person would), then the payer cancels it. */
    async function cancelledToken() {
      const mandateId = await createMandate(
        app.t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { rail: 'upi_otm' },
      );
      await rail.prepareMandate?.(mandateId);
      const row = await one<{ token_id: string; status: string }>(
        'SELECT token_id, status FROM gateway_mandate_tokens WHERE mandate_id = $1',
        [mandateId],
      );
      expect(row.status).toBe('confirmed');
      // The payer revokes the mandate in their UPI app: only the gateway's event tells us.
      app.gw.sim.control.revokeToken(row.token_id);
      const found = simEvents((e) => e.payload.token?.entity.id === row.token_id);
      const events: Event[] = [
        { name: 'confirmed', body: found.get('token.confirmed') as GatewayWebhookEvent },
        { name: 'cancelled', body: found.get('token.cancelled') as GatewayWebhookEvent },
        // The same confirmation again, later, under another event id.
        { name: 'confirmed_again', body: found.get('token.confirmed') as GatewayWebhookEvent },
      ];
      expect(events.every((e) => e.body)).toBe(true);
      return { mandateId, tokenId: row.token_id, events };
    }

    const tokenStatus = async (mandateId: string) =>
      (
        await one<{ status: string }>(
          'SELECT status FROM gateway_mandate_tokens WHERE mandate_id = $1',
          [mandateId],
        )
      ).status;

    it('all 6 orders of {confirmed, cancelled, confirmed again} end cancelled, a late confirm answered no_change', async () => {
      const ends: unknown[] = [];
      for (const order of permutations(['confirmed', 'cancelled', 'confirmed_again'])) {
        const { mandateId, events } = await cancelledToken();
        const answers = await deliver(events, order);
        ends.push({
          order,
          status: await tokenStatus(mandateId),
          http: answers.map((a) => a.status),
          late: answers.slice(order.indexOf('cancelled') + 1).map((a) => a.outcome),
        });
      }
      expect(ends).toEqual(
        permutations(['confirmed', 'cancelled', 'confirmed_again']).map((order) => ({
          order,
          status: 'cancelled',
          http: [200, 200, 200],
          late: order.slice(order.indexOf('cancelled') + 1).map(() => 'no_change'),
        })),
      );
    });

    it('concurrent confirmed and cancelled events end cancelled', async () => {
      const ends: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { mandateId, events } = await cancelledToken();
        const answers = await Promise.all(events.map((e) => post(e.body)));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
        ends.push(await tokenStatus(mandateId));
      }
      expect(ends).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
    });

    it('a debit on the cancelled token is refused by us (mandate_not_registered), never sent to the gateway', async () => {
      const { mandateId, events } = await cancelledToken();
      await deliver(events, ['cancelled', 'confirmed', 'confirmed_again']);
      const { intentId } = await payUnderMandate(mandateId, 1_500);
      expect(await intentRow(intentId)).toEqual({
        status: 'failed',
        decline_code: 'mandate_not_registered',
      });
      // No order was opened for the intent: the gateway was never asked.
      expect(await app.gw.client.findOrdersByReceipt(intentId)).toEqual([]);
    });

    it('our own read never moves the token back either', async () => {
      const { mandateId, tokenId, events } = await cancelledToken();
      await deliver(events, ['cancelled']);
      const store = app.t.get(GatewayRepository);
      expect(await store.setTokenStatus(tokenId, 'confirmed')).toEqual({
        moved: false,
        status: 'cancelled',
      });
      expect(await store.setTokenStatus(tokenId, 'initiated')).toEqual({
        moved: false,
        status: 'cancelled',
      });
      expect(await tokenStatus(mandateId)).toBe('cancelled');
      expect(await store.setTokenStatus('token_unknown0001', 'cancelled')).toBeNull();
    });
  });

  describe('Reserve Pay block: created → active → released | expired', () => {
    /** An active block (approved as the person would), then released at the gateway. */
    async function releasedBlock() {
      const mandateId = await createMandate(
        app.t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { perPaymentCapPaise: 20_000 },
      );
      await rail.prepareMandate?.(mandateId);
      const row = await one<{ block_id: string; status: string }>(
        'SELECT block_id, status FROM gateway_reserve_blocks WHERE mandate_id = $1',
        [mandateId],
      );
      expect(row.status).toBe('active');
      await app.gw.client.releaseReserveBlock(row.block_id, `release-test-${row.block_id}`);
      const found = simEvents((e) => e.payload.reserve_pay_block?.entity.id === row.block_id);
      const active = found.get('reserve_pay.block.active') as GatewayWebhookEvent;
      const released = found.get('reserve_pay.block.released') as GatewayWebhookEvent;
      expect(active && released).toBeTruthy();
      const events: Event[] = [
        { name: 'active', body: active },
        { name: 'released', body: released },
        { name: 'active_again', body: active },
      ];
      return { mandateId, blockId: row.block_id, events };
    }

    const blockRow = (mandateId: string) =>
      one<{ status: string; released_paise: string | null }>(
        'SELECT status, released_paise::text FROM gateway_reserve_blocks WHERE mandate_id = $1',
        [mandateId],
      );

    it('all 6 orders of {active, released, active again} end released with what was given back', async () => {
      const ends: unknown[] = [];
      for (const order of permutations(['active', 'released', 'active_again'])) {
        const { mandateId, events } = await releasedBlock();
        const answers = await deliver(events, order);
        ends.push({
          order,
          block: await blockRow(mandateId),
          http: answers.map((a) => a.status),
          late: answers.slice(order.indexOf('released') + 1).map((a) => a.outcome),
        });
      }
      expect(ends).toEqual(
        permutations(['active', 'released', 'active_again']).map((order) => ({
          order,
          block: { status: 'released', released_paise: '20000' },
          http: [200, 200, 200],
          late: order.slice(order.indexOf('released') + 1).map(() => 'no_change'),
        })),
      );
    });

    it('a debit on the released block is refused by us; nothing is debited at the gateway', async () => {
      const { mandateId, blockId, events } = await releasedBlock();
      await deliver(events, ['released', 'active_again']);
      const { intentId } = await payUnderMandate(mandateId, 1_600);
      expect(await intentRow(intentId)).toEqual({
        status: 'failed',
        decline_code: 'mandate_not_registered',
      });
      expect((await app.gw.client.getReserveBlock(blockId)).debited).toBe(0);
    });

    it('our own read never moves the block back either', async () => {
      const { mandateId, blockId, events } = await releasedBlock();
      await deliver(events, ['released']);
      const store = app.t.get(GatewayRepository);
      expect(await store.setReserveBlockStatus(blockId, 'active', null)).toEqual({
        moved: false,
        status: 'released',
      });
      expect(await store.setReserveBlockStatus(blockId, 'expired', 0)).toEqual({
        moved: false,
        status: 'released',
      });
      expect(await blockRow(mandateId)).toEqual({ status: 'released', released_paise: '20000' });
    });
  });

  describe('payment link: created → paid (a failed attempt does not end it)', () => {
    it('all 24 orders of {failed attempt, captured, order.paid, link paid} end paid, settled once', async () => {
      const names = ['failed', 'captured', 'order_paid', 'link_paid'];
      const ends: unknown[] = [];
      for (const [i, order] of permutations(names).entries()) {
        const quoteId = await createQuote(app.t, ws, 2_000 + i);
        const created = await request(app.t.url)
          .post(`/v1/pay/quotes/${quoteId}/payment-link`)
          .set(bearer(ws.seller.credential))
          .send();
        expect(created.status).toBe(200);
        const link = created.body as { id: string; gateway_link_id: string };
        await app.gw.sim.control
          .payLink(link.gateway_link_id, { outcome: 'fail' })
          .catch(() => undefined);
        await app.gw.sim.control.payLink(link.gateway_link_id);
        const orderId = (created.body as { gateway_order_id: string }).gateway_order_id;
        const found = simEvents((e) => e.payload.payment?.entity.order_id === orderId);
        const events: Event[] = [
          { name: 'failed', body: found.get('payment.failed') as GatewayWebhookEvent },
          { name: 'captured', body: found.get('payment.captured') as GatewayWebhookEvent },
          { name: 'order_paid', body: found.get('order.paid') as GatewayWebhookEvent },
          { name: 'link_paid', body: found.get('payment_link.paid') as GatewayWebhookEvent },
        ];
        expect(events.every((e) => e.body)).toBe(true);
        const answers = await deliver(events, order);
        const got = await request(app.t.url)
          .get(`/v1/pay/quotes/${quoteId}/payment-link`)
          .set(bearer(ws.seller.credential));
        ends.push({
          order,
          http: answers.map((a) => a.status),
          link: got.body.status,
          intents: await count(`payment_intents WHERE source_id = $1 AND status = 'settled'`, [
            link.id,
          ]),
          quote: (
            await one<{ status: string }>('SELECT status FROM quotes WHERE id = $1', [quoteId])
          ).status,
        });
      }
      expect(ends).toEqual(
        permutations(names).map((order) => ({
          order,
          http: [200, 200, 200, 200],
          link: 'paid',
          intents: 1,
          quote: 'paid',
        })),
      );
    });
  });

  describe('payment: created → authorized → captured (intent processing → settled)', () => {
    it('all 6 orders of {authorized, captured, order.paid} settle the intent once', async () => {
      const mandateId = await createMandate(
        app.t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { rail: 'upi_otm' },
      );
      await rail.prepareMandate?.(mandateId);
      const names = ['authorized', 'captured', 'order_paid'];
      const ends: unknown[] = [];
      for (const [i, order] of permutations(names).entries()) {
        // The debit is made at the gateway but its answer is lost: the intent stays processing
        // and only the gateway's events can settle it.
        const real = rail.debit.bind(rail);
        jest
          .spyOn(rail, 'debit')
          .mockImplementationOnce(async (req: RailDebitRequest): Promise<RailResult> => {
            await real(req);
            return { status: 'pending', reference: null, message: 'answer lost' };
          });
        const { intentId } = await payUnderMandate(mandateId, 3_000 + i);
        expect((await intentRow(intentId)).status).toBe('processing');
        const [gwOrder] = await app.gw.client.findOrdersByReceipt(intentId);
        const found = simEvents((e) => e.payload.payment?.entity.order_id === gwOrder.id);
        const events: Event[] = [
          { name: 'authorized', body: found.get('payment.authorized') as GatewayWebhookEvent },
          { name: 'captured', body: found.get('payment.captured') as GatewayWebhookEvent },
          { name: 'order_paid', body: found.get('order.paid') as GatewayWebhookEvent },
        ];
        const answers = await deliver(events, order);
        const intent = await request(app.t.url)
          .get(`/v1/pay/intents/${intentId}`)
          .set(bearer(ws.buyer.credential));
        ends.push({
          order,
          http: answers.map((a) => a.status),
          applied: answers.filter((a) => a.outcome === 'applied').length,
          intent: intent.body.status,
          receipts: await count(`outbox_events WHERE type = 'intent.settled' AND subject_id = $1`, [
            intentId,
          ]),
        });
      }
      expect(ends).toEqual(
        permutations(names).map((order) => ({
          order,
          http: [200, 200, 200],
          applied: 1,
          intent: 'settled',
          receipts: 1,
        })),
      );
    });
  });

  describe('refund: pending → processed | failed (refund processing → succeeded)', () => {
    it('all 6 orders of {created, processed, processed again} end succeeded, credited once', async () => {
      const mandateId = await createMandate(
        app.t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { rail: 'upi_otm' },
      );
      const names = ['created', 'processed', 'processed_again'];
      const ends: unknown[] = [];
      for (const [i, order] of permutations(names).entries()) {
        const { intentId } = await payUnderMandate(mandateId, 4_000 + i);
        expect((await intentRow(intentId)).status).toBe('settled');
        app.gw.sim.control.refundMode('pending');
        const asked = await request(app.t.url)
          .post(`/v1/pay/intents/${intentId}/refunds`)
          .set(bearer(ws.seller.credential))
          .send({ amount_paise: 1_000 });
        expect(asked.status).toBe(201);
        const refundId = asked.body.id as string;
        await app.t
          .get(ApprovalsService)
          .decide(ws.workspaceId, asked.body.approval_id as string, ws.personId, 'approved');
        const pending = await one<{ status: string; rail_reference: string }>(
          'SELECT status, rail_reference FROM refunds WHERE id = $1',
          [refundId],
        );
        expect(pending.status).toBe('processing');
        app.gw.sim.control.processRefunds({ refundId: pending.rail_reference });
        const found = simEvents((e) => e.payload.refund?.entity.id === pending.rail_reference);
        const events: Event[] = [
          { name: 'created', body: found.get('refund.created') as GatewayWebhookEvent },
          { name: 'processed', body: found.get('refund.processed') as GatewayWebhookEvent },
          { name: 'processed_again', body: found.get('refund.processed') as GatewayWebhookEvent },
        ];
        const answers = await deliver(events, order);
        ends.push({
          order,
          http: answers.map((a) => a.status),
          refund: (
            await one<{ status: string }>('SELECT status FROM refunds WHERE id = $1', [refundId])
          ).status,
          refunded: (
            await one<{ n: number }>(
              'SELECT amount_refunded_paise::int AS n FROM payment_intents WHERE id = $1',
              [intentId],
            )
          ).n,
          events: await count(`outbox_events WHERE type = 'refund.succeeded' AND subject_id = $1`, [
            refundId,
          ]),
        });
      }
      expect(ends).toEqual(
        permutations(names).map((order) => ({
          order,
          http: [200, 200, 200],
          refund: 'succeeded',
          refunded: 1_000,
          events: 1,
        })),
      );
    });
  });

  describe('settlement line: missing → reported; matched never returns to unknown', () => {
    it('an older run’s unmatched line never replaces the matched one, in either order', async () => {
      const mandateId = await createMandate(
        app.t,
        { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
        { rail: 'upi_otm' },
      );
      const settlements = app.t.get(SettlementsService);
      const ends: unknown[] = [];
      for (const [i, order] of permutations(['matched', 'unknown']).entries()) {
        const { intentId } = await payUnderMandate(mandateId, 5_000 + i);
        const entity = `pay_line${randomUUID().slice(0, 8)}`;
        const now = new Date();
        const line = (ours: boolean) => [
          `stl_${randomUUID().slice(0, 12)}`,
          'payment',
          entity,
          'setl_Order0001',
          'UTR0001',
          5_000 + i,
          100,
          18,
          0,
          4_882 + i,
          'order_x',
          intentId,
          now,
          ours ? intentId : null,
          null,
          ours ? ws.seller.id : null,
          ours ? 5_000 + i : null,
          ours ? null : 'unknown',
          now,
        ];
        for (const which of order) {
          await settlements.upsertLine(line(which === 'matched'));
        }
        const row = await one<{ intent_id: string | null; mismatch: string | null }>(
          'SELECT intent_id, mismatch FROM settlement_lines WHERE gateway_entity_id = $1',
          [entity],
        );
        ends.push({ order, matched: row.intent_id === intentId, mismatch: row.mismatch });
      }
      expect(ends).toEqual(
        permutations(['matched', 'unknown']).map((order) => ({
          order,
          matched: true,
          mismatch: null,
        })),
      );
    });
  });
});

/** Every order of the items (n! of them). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) {
    return [[...items]];
  }
  return items.flatMap((first, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [first, ...rest]),
  );
}
