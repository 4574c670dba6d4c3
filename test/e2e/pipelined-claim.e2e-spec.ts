import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { createMandate } from '../factories/mandate.factory';
import { insertToken, mandateDelegateBody } from '../factories/payment-fixtures';
import { listTeaAndBiscuits, openTeaSession } from '../factories/tea-checkout.factory';
import { startApp, TestApp } from '../support/app';
import { withKeyHeld } from '../support/key-lock';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * `@Idempotent({ pipelined: true })` (docs/architecture.md "Round trips"): the ACP create,
 * delegate_payment and complete handlers start beside their key's claim. Whatever such a handler
 * did for a key it was not given (a twin holds it, or it is already answered) must be rolled back
 * before the 409 or the replay: no session, token, intent, audit row or debit of its own.
 */
describe('Pipelined Idempotency-Key claim', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let mandateId: string;

  beforeAll(async () => {
    t = await startApp({ rail: 'sandbox' });
    ws = await seedWorkspace(t);
    await listTeaAndBiscuits(t, ws);
    mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Rows that any of the three handlers writes. */
  async function counts(): Promise<Record<string, number>> {
    const [row] = await t.db.query<Record<string, number>[]>(
      `SELECT (SELECT count(*)::int FROM checkout_sessions WHERE workspace_id = $1) AS sessions,
              (SELECT count(*)::int FROM delegated_tokens WHERE workspace_id = $1) AS tokens,
              (SELECT count(*)::int FROM payment_intents WHERE buyer_workspace_id = $1) AS intents,
              (SELECT count(*)::int FROM rail_transfers r JOIN payment_intents i ON i.id = r.intent_id
                WHERE i.buyer_workspace_id = $1) AS transfers,
              (SELECT count(*)::int FROM audit_events WHERE workspace_id = $1) AS audit`,
      [ws.workspaceId],
    );
    return row;
  }

  const ownerId = () => `protocol_key:${ws.merchantKeyId}`;

  const createBody = {
    line_items: [{ id: 'tea', quantity: 1 }],
    currency: 'inr',
    capabilities: {},
  };

  const payment = (token: string) => ({
    payment_data: {
      handler_id: 'svc_upi_mandate',
      instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
    },
  });

  it('create: a twin holding the key gets 409 and writes no session', async () => {
    const key = randomUUID();
    const before = await counts();
    const res = await withKeyHeld(
      t,
      { ownerId: ownerId(), path: '/acp/checkout_sessions', key },
      () =>
        request(t.url)
          .post('/acp/checkout_sessions')
          .set(acpHeaders(ws.merchantKey, key))
          .send(createBody),
    );
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_in_flight');
    expect(await counts()).toEqual(before);
    // The key is free afterwards: the same request now creates one session.
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(ws.merchantKey, key))
      .send(createBody);
    expect(created.status).toBe(201);
    expect((await counts()).sessions).toBe(before.sessions + 1);
  });

  it('delegate_payment: a replay answers the stored token byte for byte and mints no other', async () => {
    const sessionId = await openTeaSession(t, ws);
    const key = randomUUID();
    const body = mandateDelegateBody({
      mandateId,
      sessionId,
      merchantId: ws.seller.id,
      maxAmountPaise: 92_500,
      now: t.clock.now(),
    });
    const send = () =>
      request(t.url)
        .post('/acp/agentic_commerce/delegate_payment')
        .set(acpHeaders(ws.buyerKey, key))
        .send(body);
    const first = await send();
    expect(first.status).toBe(201);
    const before = await counts();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await counts()).toEqual(before);
  });

  it('complete: a twin holding the key gets 409; the token stays usable and nothing is paid', async () => {
    const sessionId = await openTeaSession(t, ws);
    const token = await insertToken(t, ws, { sessionId, mandateId, maxAmountPaise: 92_500 });
    const path = `/acp/checkout_sessions/${sessionId}/complete`;
    const key = randomUUID();
    const before = await counts();
    const res = await withKeyHeld(t, { ownerId: ownerId(), path, key }, () =>
      request(t.url).post(path).set(acpHeaders(ws.merchantKey, key)).send(payment(token)),
    );
    expect(res.status).toBe(409);
    expect(await counts()).toEqual(before);
    const [row] = await t.db.query<{ token: string; session: string }[]>(
      `SELECT (SELECT status FROM delegated_tokens WHERE id = $1) AS token,
              (SELECT status FROM checkout_sessions WHERE id = $2) AS session`,
      [token, sessionId],
    );
    expect(row).toEqual({ token: 'usable', session: 'ready_for_payment' });
    // Retried once the twin is gone, it pays once.
    const done = await request(t.url)
      .post(path)
      .set(acpHeaders(ws.merchantKey, key))
      .send(payment(token));
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    const after = await counts();
    expect({ intents: after.intents, transfers: after.transfers }).toEqual({
      intents: before.intents + 1,
      transfers: before.transfers + 1,
    });
  });

  it('complete: a replay answers the stored session and pays nothing more', async () => {
    const sessionId = await openTeaSession(t, ws);
    const token = await insertToken(t, ws, { sessionId, mandateId, maxAmountPaise: 92_500 });
    const path = `/acp/checkout_sessions/${sessionId}/complete`;
    const key = randomUUID();
    const send = () =>
      request(t.url).post(path).set(acpHeaders(ws.merchantKey, key)).send(payment(token));
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('completed');
    const before = await counts();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await counts()).toEqual(before);
  });
});
