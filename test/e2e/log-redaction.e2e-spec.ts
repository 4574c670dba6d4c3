import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { REDACTED_ID, redactSecretIds } from '../../src/common/http/logging';
import { MandatesService } from '../../src/mandates/mandates.service';
import { csrfFieldOf, signIn } from '../factories/app-session.factory';
import { createCheckoutSession } from '../factories/session.factory';
import { startAppCapturingLogs, TestApp } from '../support/app';
import { createQuote } from '../support/gateway-app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Secrets out of the access log (docs/security.md "Secrets out of logs"): a delegated token id
 * (`vt_…`, a payment credential) in the consent centre's revoke paths, a quote id (a capability:
 * it alone opens the pay page) and a credential sent in a path never reach a log line; the line
 * keeps the id's prefix and the rest of the path.
 */
describe('access log: token, capability and credential ids redacted from paths', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  const logs: string[] = [];

  beforeAll(async () => {
    t = await startAppCapturingLogs(logs);
    ws = await seedWorkspace(t);
  });
  afterAll(() => t?.close());

  /** The log text written since `from` (an index into logs), once the lines have flushed. */
  async function logsSince(from: number, expecting: string): Promise<string> {
    const deadline = Date.now() + 5000;
    while (!logs.slice(from).join('').includes(expecting) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
    }
    return logs.slice(from).join('');
  }

  async function delegatedToken(): Promise<string> {
    const mandate = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${ws.apiKey}`)
      .send({
        buyer_agent_id: ws.buyer.id,
        per_payment_cap_paise: 500_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(t.clock.now().getTime() + 30 * 86_400_000).toISOString(),
        rail: 'upi_reserve_pay',
      });
    expect(mandate.status).toBe(201);
    await t.get(MandatesService).authorise(ws.workspaceId, mandate.body.id, ws.personId);
    const cs = await createCheckoutSession(t, ws);
    const res = await request(t.url)
      .post('/acp/agentic_commerce/delegate_payment')
      .set(acpHeaders(ws.buyerKey, randomUUID()))
      .send({
        payment_method: { type: 'svc_mandate', mandate_id: mandate.body.id },
        allowance: {
          reason: 'one_time',
          max_amount: 45_000,
          currency: 'inr',
          checkout_session_id: cs.id,
          merchant_id: ws.seller.id,
          expires_at: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
        },
        risk_signals: [],
        metadata: {},
      });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it('redacts secret-ish segments, keeping the prefix and the rest of the path', () => {
    expect(redactSecretIds('/app/consent/tokens/vt_0abcDEF123/revoke')).toBe(
      `/app/consent/tokens/vt_${REDACTED_ID}/revoke`,
    );
    expect(redactSecretIds('/app/pay/qt_abc/status')).toBe(`/app/pay/qt_${REDACTED_ID}/status`);
    expect(redactSecretIds('/x/vt%5Fabc')).toBe(`/x/vt_${REDACTED_ID}`);
    expect(redactSecretIds('/v1/pay/agents/agc_secret/credential')).toBe(
      `/v1/pay/agents/agc_${REDACTED_ID}/credential`,
    );
    // Ordinary ids stay: an operator still reads which mandate or intent a line is about.
    for (const path of ['/v1/pay/mandates/mdt_1/amendments', '/v1/pay/intents/pi_2', '/health']) {
      expect(redactSecretIds(path)).toBe(path);
    }
  });

  it('never logs a delegated token id from the consent centre’s revoke pages', async () => {
    const tokenId = await delegatedToken();
    const from = logs.length;
    const session = await signIn(t, ws.email, ws.password);
    const path = `/app/consent/tokens/${tokenId}/revoke`;
    const confirm = await request(t.url).get(path).set('Cookie', session.cookie);
    expect(confirm.status).toBeLessThan(400);
    const page = await request(t.url).get('/app/consent').set('Cookie', session.cookie);
    const revoked = await request(t.url)
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: csrfFieldOf(page.text), confirm: 'yes' });
    expect(revoked.status).toBeLessThan(400);
    const [row] = await t.db.query<{ status: string }[]>(
      `SELECT status FROM delegated_tokens WHERE id = $1`,
      [tokenId],
    );
    expect(row.status).toBe('revoked');
    const text = await logsSince(from, `/app/consent/tokens/vt_${REDACTED_ID}/revoke`);
    expect(text).toContain(`/app/consent/tokens/vt_${REDACTED_ID}/revoke`);
    expect(text).not.toContain(tokenId);
    expect(logs.join('')).not.toContain(tokenId);
  });

  it('never logs a quote id from the pay page or a credential sent in a path', async () => {
    const quoteId = await createQuote(t, ws, 12_300);
    const from = logs.length;
    await request(t.url).get(`/app/pay/${quoteId}`);
    await request(t.url)
      .get(`/v1/pay/agents/${encodeURIComponent(ws.seller.credential)}`)
      .set('Authorization', `Bearer ${ws.apiKey}`);
    const text = await logsSince(from, `/v1/pay/agents/agc_${REDACTED_ID}`);
    expect(text).toContain(`/app/pay/qt_${REDACTED_ID}`);
    expect(text).toContain(`/v1/pay/agents/agc_${REDACTED_ID}`);
    expect(text).not.toContain(quoteId);
    expect(text).not.toContain(ws.seller.credential);
  });
});
