import http from 'node:http';
import { AddressInfo } from 'node:net';

import request from 'supertest';

import { PaymentAttempt } from '../../src/payments/payment-attempt';
import { PaymentsService } from '../../src/payments/payments.service';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';
import { insertMandate } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { PayProbeController } from '../support/probe.controller';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The outbox rule (src/outbox/outbox.repository.ts): an event exists iff the state change that
 * produced it committed. A payment is recorded `processing` in a first transaction, the rail is
 * called with none open, and it settles in a second transaction (PaymentsService.applyDebit joins
 * its caller's): the rail transfer, the receipt chain entry, the intent.settled outbox row and the
 * settled status are written there. If that transaction then fails, none of it may remain and no
 * webhook may go out; the intent is still `processing`, and the reconciler settles it once. Driven
 * over HTTP through PayProbeController on the real app, with the real dispatcher (Sweeper on a
 * 50 ms tick) and a real receiver.
 */

interface Probe {
  recorded: string;
  outcome: string;
  intent_id: string;
  receipt_id: string | null;
  inside: { outbox: number; entries: number; status: string };
  rolled_back: boolean;
}

async function startReceiver(): Promise<{ url: string; got: string[]; close(): Promise<void> }> {
  const got: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(
  what: string,
  fn: () => Promise<boolean> | boolean,
  timeoutMs = 8000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('outbox: a rolled-back payment leaves no event', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await startApp(
      { webhookRetryScheduleMs: [50, 100, 150], webhookDispatchIntervalMs: 50 },
      { controllers: [PayProbeController] },
    );
    ws = await seedWorkspace(t);
    mandateId = await insertMandate(t, ws);
    receiver = await startReceiver();
    const endpoint = await request(t.url)
      .post('/v1/webhooks/endpoints')
      .set('Authorization', `Bearer ${ws.apiKey}`)
      .send({ url: receiver.url, event_types: ['*'], agent_id: ws.seller.id });
    expect(endpoint.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const pay = async (then: 'commit' | 'roll_back'): Promise<Probe> => {
    const res = await request(t.url)
      .post('/v1/_probe/pay')
      .set('Authorization', `Bearer ${ws.apiKey}`)
      .send({
        buyer_agent_id: ws.buyer.id,
        seller_agent_id: ws.seller.id,
        mandate_id: mandateId,
        amount_paise: 12_300,
        then,
      });
    expect(res.status).toBe(200);
    return res.body as Probe;
  };

  /** Everything the payment wrote, as the database now has it. */
  const leftovers = async (p: Probe) => {
    const [row] = await t.db.query<Record<string, number>[]>(
      `SELECT (SELECT count(*)::int FROM payment_intents WHERE id = $1) AS intents,
              (SELECT count(*)::int FROM payment_intents WHERE buyer_agent_id = $3 AND status = 'settled') AS settled_for_buyer,
              (SELECT count(*)::int FROM rail_transfers WHERE intent_id = $1) AS rail_transfers,
              (SELECT count(*)::int FROM outbox_events WHERE subject_id = $1) AS outbox_events,
              (SELECT count(*)::int FROM outbox_events WHERE workspace_id = $4) AS workspace_outbox_events,
              (SELECT count(*)::int FROM chain_entries WHERE chain_id = $2) AS chain_entries,
              (SELECT count(*)::int FROM chains WHERE id = $2) AS chains,
              (SELECT count(*)::int FROM audit_events WHERE subject_id = $1) AS audit_events,
              (SELECT count(*)::int FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
                WHERE e.workspace_id = $4) AS deliveries`,
      [p.intent_id, p.receipt_id, ws.buyer.id, ws.workspaceId],
    );
    return row;
  };

  it('settles inside the second transaction, then keeps nothing of it and delivers nothing when it throws; the reconciler settles it once', async () => {
    const undone = await pay('roll_back');
    // Inside the second transaction the payment had settled (the outcome), but its writes were
    // queued, to be written by the one statement sent just before the commit (Tx.writeBeforeCommit:
    // the receipt's chain, the intent's outcome, the outbox row), so not even the transaction
    // itself saw them yet.
    expect(undone).toMatchObject({
      recorded: 'processing',
      outcome: 'settled',
      rolled_back: true,
      receipt_id: expect.stringMatching(/^rcp_/),
      inside: { outbox: 0, entries: 0, status: 'processing' },
    });
    // The first transaction (the intent, processing) stands; nothing of the second does.
    expect(await leftovers(undone)).toEqual({
      intents: 1,
      settled_for_buyer: 0,
      rail_transfers: 0,
      outbox_events: 0,
      workspace_outbox_events: 0,
      chain_entries: 0,
      chains: 0,
      audit_events: 0,
      deliveries: 0,
    });
    const [{ status }] = await t.db.query<{ status: string }[]>(
      `SELECT status FROM payment_intents WHERE id = $1`,
      [undone.intent_id],
    );
    expect(status).toBe('processing');
    const receipt = await request(t.url)
      .get(`/v1/pay/receipts/${undone.receipt_id}`)
      .set('Authorization', `Bearer ${ws.seller.credential}`);
    expect(receipt.status).toBe(404);

    // The control: the same payment committed is delivered. The dispatcher takes events in
    // order, so once this one has arrived, a leftover from the rolled-back payment would have too.
    const kept = await pay('commit');
    expect(kept).toMatchObject({
      recorded: 'processing',
      outcome: 'settled',
      rolled_back: false,
      inside: { outbox: 0, entries: 0 },
    });
    expect(kept.intent_id).not.toBe(undone.intent_id);
    await t.get(WebhookDispatcher).dispatchPending();
    await waitFor('the committed payment to be delivered', () => receiver.got.length >= 1);
    await new Promise((r) => setTimeout(r, 300)); // a few more dispatcher ticks
    expect(receiver.got).toHaveLength(1);
    const delivered = JSON.parse(receiver.got[0]) as { type: string; data: { intent_id: string } };
    expect(delivered).toMatchObject({
      type: 'intent.settled',
      data: { intent_id: kept.intent_id },
    });
    expect(receiver.got.join('\n')).not.toContain(undone.intent_id);
    expect(await leftovers(kept)).toMatchObject({
      intents: 1,
      settled_for_buyer: 1,
      outbox_events: 1,
      workspace_outbox_events: 1,
      chain_entries: 1,
      deliveries: 1,
    });
    expect(await leftovers(undone)).toMatchObject({
      intents: 1,
      outbox_events: 0,
      chain_entries: 0,
    });

    // The reconciler asks the rail about the intent left processing and settles it, once: a
    // second pass finds nothing to do.
    const payments = t.get(PaymentsService);
    expect(
      await payments.debitOnRail(PaymentAttempt.ofIntent(undone.intent_id), 'reconcile'),
    ).toMatchObject({
      status: 'settled',
    });
    expect(
      await payments.debitOnRail(PaymentAttempt.ofIntent(undone.intent_id), 'reconcile'),
    ).toBeNull();
    await t.get(WebhookDispatcher).dispatchPending();
    await waitFor('the reconciled payment to be delivered', () => receiver.got.length >= 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.got).toHaveLength(2);
    const [{ receipt_id: receiptId }] = await t.db.query<{ receipt_id: string }[]>(
      `SELECT receipt_id FROM payment_intents WHERE id = $1 AND status = 'settled'`,
      [undone.intent_id],
    );
    // A new receipt: the one the rolled-back transaction had issued never existed.
    expect(receiptId).not.toBe(undone.receipt_id);
    expect(await leftovers({ ...undone, receipt_id: receiptId })).toMatchObject({
      intents: 1,
      rail_transfers: 1,
      outbox_events: 1,
      chains: 1,
      chain_entries: 1,
      deliveries: 2,
    });
  });
});
