import { randomUUID } from 'node:crypto';

import request from 'supertest';

import type { TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace } from '../support/seed';

const DAY = 86_400_000;

/**
 * The seed seller lists tea (₹450) and biscuits (₹25) and its merchant key opens an ACP checkout
 * of 2 × tea and 1 × biscuits: ₹925. Returns the session id.
 */
export async function openTeaCheckout(
  t: TestApp,
  ws: SeededWorkspace,
  biscuitsName = 'Ginger biscuits',
): Promise<string> {
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
