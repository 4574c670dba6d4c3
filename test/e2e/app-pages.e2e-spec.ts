import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { formatIst } from '../../src/web/local-time';
import { AppSession, csrfFieldOf, signIn } from '../factories/app-session.factory';
import { insertMandate, insertToken } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The person-facing pages over HTTP: approval cards (items, seller, mandate, today's cap, expiry
 * in IST), the confirmation step above ₹2,000, outcomes, the home overview, the developer
 * console, the consent centre's details and revoke confirmation, the order page, and HTML 404s.
 */
describe('app pages', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ approvalTtlSeconds: 86_400 });
  });
  afterAll(() => t.close());

  const OFFERS = [
    { sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
    // ₹2,500: above the ₹2,000 threshold, so a person must approve.
    { sku: 'kettle', name: 'Electric kettle', unit_paise: 250_000, category: 'home.kitchen' },
  ];

  interface World {
    ws: SeededWorkspace;
    mandateId: string;
    s: AppSession;
  }

  async function world(): Promise<World> {
    const ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({ listed: true, offers: OFFERS })
      .expect(200);
    const mandateId = await insertMandate(t, ws, { payeeAgentIds: [ws.seller.id] });
    return { ws, mandateId, s: await signIn(t, ws.email, ws.password) };
  }

  /** A checkout through ACP paid with a delegated token: settled (tea) or waiting for approval (kettle). */
  async function checkout(w: World, items: { id: string; quantity: number }[]) {
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(w.ws.merchantKey, `idem-${randomUUID()}`))
      .send({ line_items: items, currency: 'inr', capabilities: {} });
    expect(created.status).toBe(201);
    const token = await insertToken(t, w.ws, {
      sessionId: created.body.id,
      mandateId: w.mandateId,
    });
    const done = await request(t.url)
      .post(`/acp/checkout_sessions/${created.body.id as string}/complete`)
      .set(acpHeaders(w.ws.merchantKey, `idem-${randomUUID()}`))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
        },
      });
    expect(done.status).toBe(200);
    const [row] = await t.db.query(`SELECT intent_id FROM checkout_sessions WHERE id = $1`, [
      created.body.id,
    ]);
    return {
      sessionId: created.body.id as string,
      token,
      intentId: row.intent_id as string,
      body: done.body,
    };
  }

  async function pendingKettle(w: World) {
    const c = await checkout(w, [{ id: 'kettle', quantity: 1 }]);
    expect(c.body.status).toBe('pending_approval');
    const [approval] = await t.db.query(`SELECT id FROM approvals WHERE subject_id = $1`, [
      c.intentId,
    ]);
    return { ...c, approvalId: approval.id as string };
  }

  const page = (w: World, path: string) => request(t.url).get(path).set('Cookie', w.s.cookie);
  const post = async (w: World, path: string, fields: Record<string, string> = {}) => {
    const csrf = csrfFieldOf((await page(w, '/app').expect(200)).text);
    return request(t.url)
      .post(path)
      .set('Cookie', w.s.cookie)
      .type('form')
      .send({ _csrf: csrf, ...fields });
  };
  const intentStatus = async (id: string) =>
    (
      (await t.db.query(`SELECT status FROM payment_intents WHERE id = $1`, [id]))[0] as {
        status: string;
      }
    ).status;

  /** The HTML of one approval card on a page. */
  function cardOf(html: string, approvalId: string): string {
    const start = html.indexOf(`data-approval="${approvalId}"`);
    expect(start).toBeGreaterThan(-1);
    return html.slice(start, html.indexOf('</article>', start));
  }

  it('an approval card says what is bought, from whom, on which mandate, what is left today and when it expires', async () => {
    const w = await world();
    const { approvalId } = await pendingKettle(w);
    const res = await page(w, '/app/approvals').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const card = cardOf(res.text, approvalId);
    expect(card).toContain('Electric kettle');
    expect(card).toMatch(/class="num" data-label="Quantity">1</);
    expect(card).toContain('₹2,500.00');
    expect(card).toContain('Chai Co');
    // The mandate and its per-payment cap (insertMandate: ₹10,000).
    expect(card).toContain(w.mandateId);
    expect(card).toContain('up to ₹10,000.00 per payment');
    // Daily cap ₹50,000 minus what the buyer committed today (this waiting payment).
    expect(card).toContain('Today&#x27;s cap left');
    expect(card).toContain('₹47,500.00 of ₹50,000.00');
    expect(card).toContain('expires in 23 h');
    expect(card).toMatch(/\d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} [ap]m IST/);
    expect(card).toContain('>Approve</button>');
    expect(card).toContain('>Deny</button>');
  });

  it('approving above ₹2,000 needs the confirmation step; confirming settles and shows the receipt', async () => {
    const w = await world();
    const { approvalId, intentId, sessionId } = await pendingKettle(w);
    const unconfirmed = await post(w, `/app/approvals/${approvalId}/approve`);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.location).toBe(
      `/app/approvals/${approvalId}/confirm?decision=approve`,
    );
    expect(await intentStatus(intentId)).toBe('requires_approval');

    const confirm = await page(w, unconfirmed.headers.location).expect(200);
    expect(confirm.text).toContain('Confirm approval</button>');
    expect(confirm.text).toContain('name="confirm" value="yes"');
    expect(confirm.text).toContain('Electric kettle');
    expect(confirm.text).toContain('₹2,500.00');

    const confirmed = await post(w, `/app/approvals/${approvalId}/approve`, { confirm: 'yes' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe(`/app/approvals/${approvalId}`);
    expect(await intentStatus(intentId)).toBe('settled');

    const [{ order_id: orderId }] = await t.db.query(
      `SELECT order_id FROM checkout_sessions WHERE id = $1`,
      [sessionId],
    );
    const outcome = await page(w, confirmed.headers.location).expect(200);
    expect(outcome.text).toContain('Paid.');
    expect(outcome.text).toContain(`href="/app/orders/${orderId as string}"`);
    expect(outcome.text).not.toContain('>Approve</button>');
    // A confirmation page for an answered approval leads to its outcome.
    const late = await page(w, `/app/approvals/${approvalId}/confirm?decision=deny`);
    expect(late.status).toBe(303);
    expect(late.headers.location).toBe(`/app/approvals/${approvalId}`);
  });

  it('denying above ₹2,000 needs the confirmation step too, then shows the outcome', async () => {
    const w = await world();
    const { approvalId, intentId } = await pendingKettle(w);
    const unconfirmed = await post(w, `/app/approvals/${approvalId}/deny`);
    expect(unconfirmed.headers.location).toBe(`/app/approvals/${approvalId}/confirm?decision=deny`);
    expect(await intentStatus(intentId)).toBe('requires_approval');
    const confirm = await page(w, unconfirmed.headers.location).expect(200);
    expect(confirm.text).toContain('Confirm denial</button>');
    const confirmed = await post(w, `/app/approvals/${approvalId}/deny`, { confirm: 'yes' });
    expect(confirmed.headers.location).toBe(`/app/approvals/${approvalId}`);
    expect(await intentStatus(intentId)).toBe('declined');
    const outcome = await page(w, `/app/approvals/${approvalId}`).expect(200);
    expect(outcome.text).toContain('Declined.');
    expect(outcome.text).toContain('nothing was paid');
  });

  it('a withdrawn approval shows its note', async () => {
    const w = await world();
    const { approvalId, token } = await pendingKettle(w);
    await post(w, `/app/consent/tokens/${token}/revoke`, { confirm: 'yes' }).then((r) =>
      expect(r.status).toBe(303),
    );
    const [row] = await t.db.query(`SELECT status, note FROM approvals WHERE id = $1`, [
      approvalId,
    ]);
    expect(row.status).toBe('withdrawn');
    const outcome = await page(w, `/app/approvals/${approvalId}`).expect(200);
    expect(outcome.text).toContain('Withdrawn.');
    expect(outcome.text).toContain('can no longer go ahead');
    const inbox = await page(w, '/app/approvals').expect(200);
    expect(cardOf(inbox.text, approvalId)).toContain('Withdrawn');
  });

  it('home is an overview: approvals waiting, today against the daily cap, recent payments with receipts', async () => {
    const w = await world();
    const tea = await checkout(w, [{ id: 'tea', quantity: 2 }]);
    expect(tea.body.status).toBe('completed');
    const { approvalId } = await pendingKettle(w);
    const home = await page(w, '/app').expect(200);
    expect(home.text).toContain('Approvals waiting');
    expect(home.text).toContain('id="waiting-count">1<');
    expect(home.text).toContain(`data-approval="${approvalId}"`);
    // Catalogue words are escaped by Handlebars: the apostrophe is &#x27;.
    expect(home.text).toContain('Today&#x27;s spending');
    // ₹900 settled + ₹2,500 waiting = ₹3,400 of ₹50,000; ₹46,600 left.
    expect(home.text).toContain('₹3,400.00');
    expect(home.text).toContain('₹46,600.00 left today');
    expect(home.text).toContain('Recent payments');
    expect(home.text).toContain('2 × Assam tea 1 kg');
    expect(home.text).toContain(`href="/app/orders/${tea.body.order.id as string}"`);
    expect(home.text).toContain('Recent refunds');
    expect(home.text).toMatch(/\d{1,2}:\d{2} [ap]m IST/);
    // The developer console has its own page and nav entry.
    expect(home.text).toContain('<a href="/app/developers">Developers</a>');
    expect(home.text).toContain('<a href="/app" aria-current="page">Home</a>');
    expect(home.text).not.toContain('Create an API key');
  });

  it('the developer console lists agents, API keys and protocol keys with the key form', async () => {
    const w = await world();
    const dev = await page(w, '/app/developers').expect(200);
    expect(dev.text).toContain('<h1>Developers</h1>');
    expect(dev.text).toContain('Chai Co');
    expect(dev.text).toContain(`sk_test_…${w.ws.apiKey.slice(-4)}`);
    expect(dev.text).not.toContain(w.ws.apiKey);
    expect(dev.text).toContain(w.ws.buyerKeyId);
    expect(dev.text).toContain('action="/app/api-keys"');
    expect(dev.text).toContain('<label for="api-key-name">Name</label>');
    expect(dev.text).toContain('aria-current="page">Developers</a>');
  });

  it('the consent centre shows mandate and token details, and revoking asks for confirmation', async () => {
    const w = await world();
    await checkout(w, [{ id: 'tea', quantity: 1 }]);
    const created = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(w.ws.merchantKey, `idem-${randomUUID()}`))
      .send({ line_items: [{ id: 'tea', quantity: 3 }], currency: 'inr', capabilities: {} })
      .expect(201);
    const token = await insertToken(t, w.ws, {
      sessionId: created.body.id,
      mandateId: w.mandateId,
      maxAmountPaise: 135_000,
    });

    const consent = await page(w, '/app/consent').expect(200);
    const mandate = consent.text.slice(consent.text.indexOf(`data-id="${w.mandateId}"`));
    expect(mandate).toMatch(/class="payees">Chai Co/);
    expect(mandate).toContain('class="cap">₹10,000.00 per payment');
    expect(mandate).toContain('class="used">₹450.00');
    expect(mandate).toMatch(/class="validity">[^<]*IST to [^<]*IST/);
    const tok = consent.text.slice(consent.text.indexOf(`data-id="${token}"`));
    expect(tok).toContain('class="seller">Chai Co');
    expect(tok).toContain('3 × Assam tea 1 kg');
    expect(tok).toContain(created.body.id);
    expect(tok).toContain('class="amount">₹1,350.00');

    const unconfirmed = await post(w, `/app/consent/tokens/${token}/revoke`);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.location).toBe(`/app/consent/tokens/${token}/revoke`);
    const [before] = await t.db.query(`SELECT status FROM delegated_tokens WHERE id = $1`, [token]);
    expect(before.status).toBe('usable');
    const confirm = await page(w, unconfirmed.headers.location).expect(200);
    expect(confirm.text).toContain('Payment token for Chai Co');
    expect(confirm.text).toContain('>Revoke</button>');
    expect(confirm.text).toContain('name="confirm" value="yes"');
    const done = await post(w, `/app/consent/tokens/${token}/revoke`, { confirm: 'yes' });
    expect(done.headers.location).toBe('/app/consent');
    const [after] = await t.db.query(`SELECT status FROM delegated_tokens WHERE id = $1`, [token]);
    expect(after.status).toBe('revoked');

    const mandateConfirm = await page(w, `/app/consent/mandates/${w.mandateId}/revoke`).expect(200);
    expect(mandateConfirm.text).toContain('Up to ₹10,000.00 per payment');
    expect(mandateConfirm.text).toContain('May pay: Chai Co');
  });

  it('the order page is readable: seller, items, paid time in IST, masked mandate, refunds, verifiable receipt', async () => {
    const w = await world();
    const tea = await checkout(w, [{ id: 'tea', quantity: 2 }]);
    const res = await request(t.url)
      .get(`/app/orders/${tea.body.order.id as string}`)
      .expect(200);
    const [row] = await t.db.query(`SELECT completed_at FROM checkout_sessions WHERE id = $1`, [
      tea.sessionId,
    ]);
    expect(res.text).toContain('Your order from Chai Co');
    expect(res.text).toContain('Assam tea 1 kg');
    expect(res.text).toContain('₹900.00');
    expect(res.text).toContain(`id="order-paid-at">${formatIst(row.completed_at as Date)}<`);
    // The method in words; the mandate only by its last four characters, under Details.
    expect(res.text).toContain('UPI Reserve Pay (money blocked on your UPI account)');
    expect(res.text).toContain(`<code>${w.mandateId.slice(-4)}</code>`);
    expect(res.text).not.toContain(w.mandateId);
    expect(res.text).toContain('Need a refund?');
    expect(res.text).toContain('Verify this receipt');
    expect(res.text).toContain(`href="${t.config.baseUrl}/.well-known/jwks.json"`);
    expect(res.text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('a 404 under /app is an HTML page, signed in or not', async () => {
    const anon = await request(t.url).get('/app/no-such-page');
    expect(anon.status).toBe(404);
    expect(anon.headers['content-type']).toMatch(/^text\/html/);
    expect(anon.text).toContain('<h1>Not found</h1>');
    const w = await world();
    const missing = await page(w, '/app/approvals/apr_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    const order = await request(t.url).get('/app/orders/ord_doesnotexist');
    expect(order.status).toBe(404);
    expect(order.headers['content-type']).toMatch(/^text\/html/);
    // The API keeps its JSON 404.
    const api = await request(t.url).get('/v1/no-such-route');
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toMatch(/json/);
  });

  it('pages use one same-origin stylesheet: no inline style or script', async () => {
    const css = await request(t.url).get('/app/assets/app.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.text).toContain('.decide');
    const w = await world();
    const { approvalId } = await pendingKettle(w);
    for (const path of [
      '/app',
      '/app/approvals',
      `/app/approvals/${approvalId}/confirm?decision=approve`,
      '/app/consent',
      '/app/developers',
    ]) {
      const res = await page(w, path).expect(200);
      expect(res.text).toContain('<link rel="stylesheet" href="/app/assets/app.css">');
      expect(res.text).not.toMatch(/<style|style=|<script/i);
      expect(res.text).toContain('<main id="main">');
    }
    const login = await request(t.url).get('/app/login').expect(200);
    expect(login.text).not.toMatch(/<style|style=|<script/i);
  });
});
