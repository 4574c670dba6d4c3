import { randomUUID } from 'node:crypto';

import request from 'supertest';

import type { TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace } from '../support/seed';
import { insertToken } from './payment-fixtures';

const DAY = 86_400_000;

/** The seed seller lists tea (₹450) and biscuits (₹25). */
export async function listTeaAndBiscuits(
  t: TestApp,
  ws: SeededWorkspace,
  biscuitsName = 'Ginger biscuits',
): Promise<void> {
  await request(t.url)
    .put(`/v1/pay/agents/${ws.seller.id}/listing`)
    .set('Authorization', `Bearer ${ws.seller.credential}`)
    .send({
      listed: true,
      offers: [
        { sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
        { sku: 'biscuits', name: biscuitsName, unit_paise: 2_500, category: 'food.snacks' },
      ],
    })
    .expect(200);
}

/** The merchant key opens an ACP checkout of 2 × tea and 1 × biscuits (₹925): its id. */
export async function openTeaSession(t: TestApp, ws: SeededWorkspace): Promise<string> {
  const session = await request(t.url)
    .post('/acp/checkout_sessions')
    .set(acpHeaders(ws.merchantKey, randomUUID()))
    .send({
      line_items: [
        { id: 'tea', quantity: 2 },
        { id: 'biscuits', quantity: 1 },
      ],
      currency: 'inr',
      capabilities: {},
    })
    .expect(201);
  return session.body.id as string;
}

/** Lists the offers, then opens the ₹925 checkout: the session id. */
export async function openTeaCheckout(
  t: TestApp,
  ws: SeededWorkspace,
  biscuitsName = 'Ginger biscuits',
): Promise<string> {
  await listTeaAndBiscuits(t, ws, biscuitsName);
  return openTeaSession(t, ws);
}

/**
 * The ₹925 checkout completed with a token inserted on `mandateId` (no approval needed): the
 * order id. The offers must be listed.
 */
export async function completeTeaOrder(
  t: TestApp,
  ws: SeededWorkspace,
  mandateId: string,
): Promise<string> {
  const sessionId = await openTeaSession(t, ws);
  const token = await insertToken(t, ws, { sessionId, mandateId, maxAmountPaise: 92_500 });
  const done = await completeWithToken(t, ws, sessionId, token).expect(200);
  expect(done.body.status).toBe('completed');
  return done.body.order.id as string;
}

/** The merchant key completes a session with a delegated token (a fresh Idempotency-Key). */
export function completeWithToken(
  t: TestApp,
  ws: SeededWorkspace,
  sessionId: string,
  token: string,
): request.Test {
  return request(t.url)
    .post(`/acp/checkout_sessions/${sessionId}/complete`)
    .set(acpHeaders(ws.merchantKey, randomUUID()))
    .send({
      payment_data: {
        handler_id: 'svc_upi_mandate',
        instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
      },
    });
}

/**
 * A one-time mandate as delegate_payment makes it for that checkout (₹925, two days): the token's
 * metadata (mandate_id, status pending_authorisation until a person authorises it).
 */
export async function oneTimeMandateFor(
  t: TestApp,
  ws: SeededWorkspace,
  sessionId: string,
): Promise<{ mandate_id: string; status: string }> {
  const token = await request(t.url)
    .post('/acp/agentic_commerce/delegate_payment')
    .set(acpHeaders(ws.buyerKey, randomUUID()))
    .send({
      payment_method: { type: 'svc_mandate' },
      allowance: {
        reason: 'one_time',
        max_amount: 92_500,
        currency: 'inr',
        checkout_session_id: sessionId,
        merchant_id: ws.seller.id,
        expires_at: new Date(t.clock.now().getTime() + 2 * DAY).toISOString(),
      },
      risk_signals: [],
      metadata: {},
    })
    .expect(201);
  return token.body.metadata as { mandate_id: string; status: string };
}

/**
 * A ₹999/month AutoPay mandate the buyer agent proposes to the seed seller ("Tea subscription",
 * a year), with a ₹700 first debit the seller schedules with its registration (docs/recurring.md):
 * the mandate id and the first charge as the API answered it.
 */
export async function teaSubscriptionMandate(
  t: TestApp,
  ws: SeededWorkspace,
): Promise<{ mandateId: string; firstCharge: Record<string, unknown> }> {
  const res = await request(t.url)
    .post('/v1/pay/mandates')
    .set('Authorization', `Bearer ${ws.buyer.credential}`)
    .send({
      kind: 'recurring',
      recurring: { billing_cycle: 'monthly' },
      per_payment_cap_paise: 99_900,
      payee_agent_ids: [ws.seller.id],
      valid_until: new Date(t.clock.now().getTime() + 365 * DAY).toISOString(),
      description: 'Tea subscription',
    })
    .expect(201);
  const first = await request(t.url)
    .post(`/v1/pay/mandates/${res.body.id as string}/charges`)
    .set('Authorization', `Bearer ${ws.seller.credential}`)
    .send({ amount_paise: 70_000, description: 'Tea box', reason: 'First month, part' })
    .expect(201);
  return { mandateId: res.body.id as string, firstCharge: first.body as Record<string, unknown> };
}
