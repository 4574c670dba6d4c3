import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { AppError } from '../../src/common/errors/app-error';
import { Tx } from '../../src/database/tx';
import { TokensService } from '../../src/delegate-payment/tokens.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { AppSession, csrfFieldOf, signIn } from '../factories/app-session.factory';
import { createCheckoutSession } from '../factories/session.factory';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, keyPair, SeededWorkspace, seedWorkspace } from '../support/seed';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const DELEGATE = '/acp/agentic_commerce/delegate_payment';

describe('Consent centre ({appUrl}/consent)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let session: AppSession;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    session = await signIn(t, ws.email, ws.password);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const at = (msFromNow: number) => new Date(t.clock.now().getTime() + msFromNow).toISOString();

  async function activeMandate(owner = ws, cap = 500_000): Promise<string> {
    const res = await request(t.url)
      .post('/v1/pay/mandates')
      .set('Authorization', `Bearer ${owner.apiKey}`)
      .send({
        buyer_agent_id: owner.buyer.id,
        per_payment_cap_paise: cap,
        payee_agent_ids: [owner.seller.id],
        valid_until: at(30 * DAY),
        rail: 'upi_reserve_pay',
      });
    await t.get(MandatesService).authorise(owner.workspaceId, res.body.id, owner.personId);
    return res.body.id as string;
  }

  async function delegate(
    owner: SeededWorkspace,
    mandateId: string,
    buyerKey = owner.buyerKey,
    expiresInMs = HOUR,
  ) {
    const cs = await createCheckoutSession(t, owner);
    return request(t.url)
      .post(DELEGATE)
      .set(acpHeaders(buyerKey, `idem-${randomUUID()}`))
      .send({
        payment_method: { type: 'svc_mandate', mandate_id: mandateId },
        allowance: {
          reason: 'one_time',
          max_amount: 45_000,
          currency: 'inr',
          checkout_session_id: cs.id,
          merchant_id: owner.seller.id,
          expires_at: at(expiresInMs),
        },
        risk_signals: [],
        metadata: {},
      });
  }

  const consentPage = (s = session) => request(t.url).get('/app/consent').set('Cookie', s.cookie);
  const submit = (path: string, form: Record<string, string>, s = session) =>
    request(t.url).post(path).set('Cookie', s.cookie).type('form').send(form);

  /** The table row (<tr data-id=…>) or card (<article … data-id=…>) of one item on the page. */
  function rowOf(html: string, id: string): string {
    const m =
      new RegExp(`<tr data-id="${id}">([\\s\\S]*?)</tr>`).exec(html) ??
      new RegExp(`<article [^>]*data-id="${id}"[^>]*>([\\s\\S]*?)</article>`).exec(html);
    return m ? m[1] : '';
  }

  /** Redeems the token the way complete does; returns the refusal code or 'ok'. */
  async function redeem(tokenId: string, checkoutSessionId: string): Promise<string> {
    try {
      await t.get(Tx).run(() =>
        t.get(TokensService).redeem({
          tokenId,
          checkoutSessionId,
          merchantAgentId: ws.seller.id,
          amountPaise: 45_000,
        }),
      );
      return 'ok';
    } catch (err) {
      return err instanceof AppError ? err.code : String(err);
    }
  }

  it('redirects to sign-in without a session and ignores bearer credentials', async () => {
    const anon = await request(t.url).get('/app/consent');
    expect(anon.status).toBe(303);
    expect(anon.headers.location).toBe('/app/login?next=%2Fapp%2Fconsent');
    const bearer = await request(t.url)
      .get('/app/consent')
      .set('Authorization', `Bearer ${ws.apiKey}`);
    expect(bearer.status).toBe(303);
  });

  it('lists protocol keys, mandates and only live tokens, with the nav entry', async () => {
    const mandateId = await activeMandate();
    const live = await delegate(ws, mandateId);
    const expired = await delegate(ws, mandateId, ws.buyerKey, 60_000);
    const used = await delegate(ws, mandateId);
    await t.db.query(`UPDATE delegated_tokens SET status = 'used', used_at = now() WHERE id = $1`, [
      used.body.id,
    ]);
    await t.db.query(`UPDATE delegated_tokens SET expires_at = $2 WHERE id = $1`, [
      expired.body.id,
      new Date(Date.now() - 1000),
    ]);

    const page = await consentPage();
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toMatch(
      /<a href="\/app\/consent"( aria-current="page")?>Consent centre<\/a>/,
    );

    const keyRow = rowOf(page.text, ws.buyerKeyId);
    expect(keyRow).toContain('acpk_…');
    expect(keyRow).toContain('buyer');
    expect(keyRow).toContain('Buyer assistant');
    expect(keyRow).toContain('active');
    expect(keyRow).toContain(`/app/consent/protocol-keys/${ws.buyerKeyId}/revoke`);
    expect(rowOf(page.text, ws.merchantKeyId)).toContain('Chai Co');

    const mandateRow = rowOf(page.text, mandateId);
    expect(mandateRow).toContain('active');
    expect(mandateRow).toContain('₹5,000.00');
    expect(mandateRow).toContain('Chai Co');
    expect(mandateRow).toContain(`/app/consent/mandates/${mandateId}/revoke`);

    const tokenRow = rowOf(page.text, live.body.id);
    expect(tokenRow).toContain('Chai Co');
    expect(tokenRow).toContain('₹450.00');
    expect(tokenRow).toContain('IST');
    expect(tokenRow).toContain(`/app/consent/tokens/${live.body.id}/revoke`);
    expect(page.text).not.toContain(expired.body.id);
    expect(page.text).not.toContain(used.body.id);
  });

  it('revokes a token in one tap; the next redeem sees it revoked', async () => {
    const mandateId = await activeMandate();
    const minted = await delegate(ws, mandateId);
    const sessionId = minted.body.metadata.checkout_session_id as string;
    const page = await consentPage();

    const noCsrf = await submit(`/app/consent/tokens/${minted.body.id}/revoke`, {});
    expect(noCsrf.status).toBe(403);
    const [{ status: before }] = await t.db.query(
      'SELECT status FROM delegated_tokens WHERE id = $1',
      [minted.body.id],
    );
    expect(before).toBe('usable');

    const res = await submit(`/app/consent/tokens/${minted.body.id}/revoke`, {
      _csrf: csrfFieldOf(page.text),
      confirm: 'yes',
    });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/app/consent');
    const [token] = await t.db.query(
      'SELECT status, revoked_at FROM delegated_tokens WHERE id = $1',
      [minted.body.id],
    );
    expect(token.status).toBe('revoked');
    expect(token.revoked_at).not.toBeNull();
    expect(await redeem(minted.body.id, sessionId)).toBe('token_revoked');
    expect(rowOf((await consentPage()).text, minted.body.id)).toBe('');
  });

  it('revokes a mandate with its live tokens; delegate_payment then refuses it', async () => {
    const mandateId = await activeMandate();
    const minted = await delegate(ws, mandateId);
    const page = await consentPage();
    const res = await submit(`/app/consent/mandates/${mandateId}/revoke`, {
      _csrf: csrfFieldOf(page.text),
      confirm: 'yes',
    });
    expect(res.status).toBe(303);
    const [m] = await t.db.query('SELECT status, revoked_at FROM mandates WHERE id = $1', [
      mandateId,
    ]);
    expect(m.status).toBe('revoked');
    expect(m.revoked_at).not.toBeNull();
    const [token] = await t.db.query('SELECT status FROM delegated_tokens WHERE id = $1', [
      minted.body.id,
    ]);
    expect(token.status).toBe('revoked');
    const next = await delegate(ws, mandateId);
    expect(next.status).toBe(400);
    expect(next.body).toMatchObject({
      code: 'invalid_allowance',
      param: '$.payment_method.mandate_id',
    });
    const after = (await consentPage()).text;
    const row = rowOf(after, mandateId);
    expect(row).toContain('revoked');
    expect(row).not.toContain('/revoke');
    // Ended mandates are folded away under their own summary, not in the active list.
    const folded = /<details class="folded" data-test="ended-mandates">([\s\S]*?)<\/details>/.exec(
      after,
    );
    expect(folded?.[1]).toContain(`data-id="${mandateId}"`);
    const active = after.slice(
      after.indexOf('<h2>Mandates</h2>'),
      after.indexOf('data-test="ended-mandates"'),
    );
    expect(active).not.toContain(`data-id="${mandateId}"`);
  });

  it('revokes a protocol key; its next ACP call is 401', async () => {
    const fresh = await seedWorkspace(t);
    const freshSession = await signIn(t, fresh.email, fresh.password);
    const mandateId = await activeMandate(fresh);
    expect((await delegate(fresh, mandateId)).status).toBe(201);
    const page = await consentPage(freshSession);
    const res = await submit(
      `/app/consent/protocol-keys/${fresh.buyerKeyId}/revoke`,
      { _csrf: csrfFieldOf(page.text), confirm: 'yes' },
      freshSession,
    );
    expect(res.status).toBe(303);
    const next = await delegate(fresh, mandateId);
    expect(next.status).toBe(401);
    expect(next.body.code).toBe('unauthorized');
    expect(rowOf((await consentPage(freshSession)).text, fresh.buyerKeyId)).toContain('revoked');
  });

  it('issues a protocol key shown once, which works on delegate_payment', async () => {
    const page = await consentPage();
    const res = await submit('/app/consent/protocol-keys', {
      _csrf: csrfFieldOf(page.text),
      role: 'buyer',
      agent_id: ws.buyer.id,
      name: 'phone assistant',
      public_key: '',
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const key = /<code id="secret">(acpk_[A-Za-z0-9]+)<\/code>/.exec(res.text)?.[1];
    expect(key).toBeDefined();
    const [row] = await t.db.query(
      `SELECT role, agent_id, name, public_key_pem FROM protocol_keys WHERE hint = $1`,
      [`acpk_…${key!.slice(-4)}`],
    );
    expect(row).toEqual({
      role: 'buyer',
      agent_id: ws.buyer.id,
      name: 'phone assistant',
      public_key_pem: null,
    });
    expect((await delegate(ws, await activeMandate(), key)).status).toBe(201);
    expect((await consentPage()).text).not.toContain(key!);
  });

  it('issues a key with a public key PEM, and refuses a bad PEM or a role the agent cannot take', async () => {
    const page = await consentPage();
    const csrf = csrfFieldOf(page.text);
    const { publicPem } = keyPair('ed25519');
    const signed = await submit('/app/consent/protocol-keys', {
      _csrf: csrf,
      role: 'merchant',
      agent_id: ws.seller.id,
      public_key: publicPem,
    });
    expect(signed.status).toBe(200);
    expect(signed.text).toContain('requests must be signed (ed25519)');
    const badPem = await submit('/app/consent/protocol-keys', {
      _csrf: csrf,
      role: 'buyer',
      agent_id: ws.buyer.id,
      public_key: 'not a key',
    });
    expect(badPem.status).toBe(400);
    const wrongRole = await submit('/app/consent/protocol-keys', {
      _csrf: csrf,
      role: 'merchant',
      agent_id: ws.buyer.id,
    });
    expect(wrongRole.status).toBe(400);
    const noCsrf = await submit('/app/consent/protocol-keys', {
      role: 'buyer',
      agent_id: ws.buyer.id,
    });
    expect(noCsrf.status).toBe(403);
  });

  it('cannot revoke another workspace’s token, mandate or key', async () => {
    const stranger = await seedWorkspace(t);
    const strangerSession = await signIn(t, stranger.email, stranger.password);
    const csrf = csrfFieldOf((await consentPage(strangerSession)).text);
    const mandateId = await activeMandate();
    const minted = await delegate(ws, mandateId);
    for (const path of [
      `/app/consent/tokens/${minted.body.id}/revoke`,
      `/app/consent/mandates/${mandateId}/revoke`,
      `/app/consent/protocol-keys/${ws.buyerKeyId}/revoke`,
    ]) {
      const res = await submit(path, { _csrf: csrf, confirm: 'yes' }, strangerSession);
      expect(res.status).toBe(404);
    }
    const [token] = await t.db.query('SELECT status FROM delegated_tokens WHERE id = $1', [
      minted.body.id,
    ]);
    expect(token.status).toBe('usable');
    expect(await redeem(minted.body.id, minted.body.metadata.checkout_session_id)).toBe('ok');
  });
});
