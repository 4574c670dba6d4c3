import { randomUUID } from 'node:crypto';

import type { JSONWebKeySet } from 'jose';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { ChainService } from '../../src/chains/chain.service';
import type { ChainEntryJson } from '../../src/chains/chain-entry';
import { verifyChain } from '../../src/chains/verify-chain';
import { randomToken } from '../../src/common/ids';
import { MandatesService } from '../../src/mandates/mandates.service';
import { ProtocolKeysService } from '../../src/protocol-keys/protocol-keys.service';
import { AppSession, csrfFieldOf, signIn } from '../factories/app-session.factory';
import { readyTravelFile, registerPartner } from '../factories/forex.factory';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer } from '../factories/offer.factory';
import { insertToken } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { withoutIdentityNumber } from '../support/no-identity-number';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * A person's data rights (issue 22 items 3, 4; docs/personal-data.md): the "Your data" page and
 * its download hold every kind of record and nothing of another workspace; correction is audited;
 * erasure leaves no name, email or phone in any table, keeps the records a law requires (listed
 * with the rule) and every signed chain of the workspace still verifies offline with the JWKS.
 */
describe('Your data (DPDP rights)', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let person: AppSession;
  const name = withoutIdentityNumber(() => `Zoya Qx${randomToken(8)}`);
  const email = withoutIdentityNumber(() => `zoya-${randomToken(10).toLowerCase()}@example.test`);
  const phone = `98${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  let mandateId: string;
  let intentId: string;
  let refundId: string;
  let forexFileId: string;
  let otherIntentId: string;

  const page = (s: AppSession, path: string) => request(t.url).get(path).set('Cookie', s.cookie);
  async function post(s: AppSession, path: string, fields: Record<string, string> = {}) {
    const csrf = csrfFieldOf((await page(s, '/app').expect(200)).text);
    return request(t.url)
      .post(path)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrf, ...fields });
  }
  const download = async (s: AppSession) => {
    const res = await page(s, '/app/your-data/download').expect(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="your-data.json"');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document read field by field
    return JSON.parse(res.text) as Record<string, any>;
  };

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    other = await seedWorkspace(t);
    person = await signIn(t, ws.email, ws.password);

    // Correct name, email and phone first: the records below then carry the corrected values.
    const corrected = await post(person, '/app/your-data/profile', { name, email, phone });
    expect(corrected.status).toBe(303);

    // A mandate the person authorises in the app (a consent), then a payment, approval, refund.
    mandateId = await createMandate(
      t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { status: 'pending_authorisation' },
    );
    // What the authorisation page's form calls (the page itself is tested in mandates.e2e-spec).
    await t.get(MandatesService).authorise(ws.workspaceId, mandateId, ws.personId);
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 10_000,
    });
    expect(paid.intent.status).toBe('settled');
    intentId = paid.intent.id;
    const asked = await request(t.url)
      .post(`/v1/pay/intents/${intentId}/refunds`)
      .set({ ...bearer(ws.seller.credential), 'Idempotency-Key': `idem-${randomUUID()}` })
      .send({ amount_paise: 3_000, reason: 'One item was missing' })
      .expect(201);
    refundId = asked.body.id as string;
    await t
      .get(ApprovalsService)
      .decide(ws.workspaceId, asked.body.approval_id as string, ws.personId, 'approved');

    // An ACP purchase whose agent platform gave the person's contact as the buyer's and as the
    // fulfillment contact, with an address (kept on the session: docs/acp.md "Accepted extensions").
    const offer = await createOffer(t, ws.seller.id);
    const session = (
      await request(t.url)
        .post('/acp/checkout_sessions')
        .set(acpHeaders(ws.merchantKey, `idem-${randomUUID()}`))
        .send({
          line_items: [{ id: offer.sku, quantity: 1 }],
          currency: 'inr',
          capabilities: {},
          buyer: { first_name: name, email, phone_number: phone },
          fulfillment_details: {
            name,
            email,
            phone_number: phone,
            address: {
              name,
              line_one: '4 Erasure Lane',
              city: 'Pune',
              state: 'MH',
              country: 'IN',
              postal_code: '411001',
            },
          },
        })
        .expect(201)
    ).body as { id: string };
    const token = await insertToken(t, ws, { sessionId: session.id, mandateId });
    const completed = await request(t.url)
      .post(`/acp/checkout_sessions/${session.id}/complete`)
      .set(acpHeaders(ws.merchantKey, `idem-${randomUUID()}`))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
        },
      });
    expect(completed.body.status).toBe('completed');

    // A forex file for the person (they are the traveller), submitted and declared (a consent).
    const partner = await registerPartner(t);
    const ready = await readyTravelFile(
      t,
      { ...ws, email },
      partner.partnerId,
      [{ currency: 'USD', amount: '1000', product: 'card' }],
      { traveller_name: name, notes: `Call ${name} on ${phone}` },
    );
    forexFileId = ready.fileId;
    await ready.fx.submit(forexFileId).expect(200);
    expect(
      (
        await post(person, `/app/forex/declarations/${forexFileId}/declare`, {
          confirm: 'yes',
        })
      ).status,
    ).toBe(303);

    // A withdrawn consent: one protocol key revoked.
    await t
      .get(ProtocolKeysService)
      .revoke(ws.workspaceId, ws.buyerKeyId, { type: 'person', id: ws.personId });

    // Another workspace's payment: never in this person's download.
    const otherMandate = await createMandate(t, {
      workspaceId: other.workspaceId,
      agentId: other.buyer.id,
    });
    otherIntentId = (
      await payFreeFormQuote(t, {
        seller: other.seller,
        buyer: other.buyer,
        mandateId: otherMandate,
        amountPaise: 5_000,
      })
    ).intent.id;
  }, 60_000);
  afterAll(() => t.close());

  it('downloads every kind of record as a JSON attachment, and nothing of another workspace', async () => {
    const x = await download(person);
    expect(x.profile).toMatchObject({ id: ws.personId, name, email, phone });
    expect(x.sessions.length).toBeGreaterThanOrEqual(1);
    expect(x.sessions.some((s: { current: boolean }) => s.current)).toBe(true);
    expect(JSON.stringify(x.sessions)).not.toMatch(/token|hash/);
    expect(x.mandates.map((m: { id: string }) => m.id)).toContain(mandateId);
    expect(
      x.approvals.some(
        (a: { subject_id: string; status: string }) =>
          a.subject_id === refundId && a.status === 'approved',
      ),
    ).toBe(true);
    const payment = x.payments.find((p: { id: string }) => p.id === intentId);
    expect(
      payment.receipt.entries.map((e: { payload: { type: string } }) => e.payload.type),
    ).toEqual(['payment.settled', 'refund.succeeded']);
    expect(x.refunds.map((r: { id: string }) => r.id)).toEqual([refundId]);
    const file = x.forex_files.find((f: { id: string }) => f.id === forexFileId);
    expect(file.pan_masked).toMatch(/^X{5}[0-9]{4}[A-Z]$|^[A-Z]*X+/);
    expect(JSON.stringify(file)).not.toMatch(/pan_hash/);
    expect(file.documents.length).toBe(2);
    expect(file.receipt.entries[0].payload.type).toBe('forex.file_created');
    const kinds = x.consents.map((c: { kind: string }) => c.kind).sort();
    expect(kinds).toEqual(['forex_declaration', 'mandate', 'protocol_key', 'protocol_key']);
    const revoked = x.consents.find((c: { subject_id: string }) => c.subject_id === ws.buyerKeyId);
    expect(revoked.withdrawn_at).toEqual(expect.any(String));
    expect(revoked.purpose).toMatch(/agent/);

    const text = JSON.stringify(x);
    for (const foreign of [other.workspaceId, other.personId, other.email, otherIntentId]) {
      expect(text).not.toContain(foreign);
    }
  });

  it('shows the same on a readable page, with consents, the grievance officer and the erasure rules', async () => {
    const res = await page(person, '/app/your-data').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain(name);
    expect(res.text).toContain(phone);
    expect(res.text).toContain('href="/app/your-data/download"');
    expect(res.text).toContain('Forex declaration (Form A2 / LRS)');
    expect(res.text).toMatch(/Given .*withdrawn/);
    expect(res.text).toContain('Grievance Officer (sandbox)');
    expect(res.text).toMatch(/answer within 30 days/);
    expect(res.text).toContain('Prevention of Money-laundering Act');
    expect(res.text).not.toContain(other.email);
    const privacy = await request(t.url).get('/app/legal/privacy').expect(200);
    expect(privacy.text).toContain('grievance@example.invalid');
    expect(privacy.text).toMatch(/within\s+30 days/);
  });

  it('shows a short notice on sign-up and mandate authorisation', async () => {
    const signup = await request(t.url).get('/app/signup').expect(200);
    for (const words of ['What we collect', 'Why', 'For how long', 'Your rights', 'withdraw']) {
      expect(signup.text).toContain(words);
    }
    expect(signup.text).toContain('grievance@example.invalid');
    const pending = await createMandate(
      t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { status: 'pending_authorisation' },
    );
    const auth = await page(person, `/app/mandates/${pending}/authorize`).expect(200);
    expect(auth.text).toContain('Your personal data: a short notice');
    expect(auth.text).toContain('grievance@example.invalid');
  });

  it('corrects name and contact details with validation, CSRF and an audit row naming only the fields', async () => {
    const bad = await post(person, '/app/your-data/profile', {
      name,
      email: 'not-an-email',
      phone,
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter an email address');
    // The same refusal in the page's language (locales/hi/data.json), the form kept as typed.
    const hindi = await request(t.url)
      .post('/app/your-data/profile')
      .set('Cookie', person.cookie)
      .set('Accept-Language', 'hi-IN')
      .type('form')
      .send({
        _csrf: csrfFieldOf((await page(person, '/app').expect(200)).text),
        name,
        email: 'not-an-email',
        phone,
      });
    expect(hindi.status).toBe(400);
    expect(hindi.text).toContain('name@example.com जैसा ईमेल पता लिखें।');
    expect(hindi.text).toContain('value="not-an-email"');
    const badPhone = await post(person, '/app/your-data/profile', { name, email, phone: '12345' });
    expect(badPhone.status).toBe(400);
    const noCsrf = await request(t.url)
      .post('/app/your-data/profile')
      .set('Cookie', person.cookie)
      .type('form')
      .send({ name: 'Mallory', email, phone });
    expect(noCsrf.status).toBe(403);
    const taken = await post(person, '/app/your-data/profile', { name, email: other.email, phone });
    expect(taken.status).toBe(400);
    const [row] = await t.db.query<{ name: string; email: string; phone: string }[]>(
      'SELECT name, email, phone FROM persons WHERE id = $1',
      [ws.personId],
    );
    expect(row).toEqual({ name, email, phone });
    const audits = await t.db.query<{ data: { fields: string[] } }[]>(
      `SELECT data FROM audit_events WHERE action = 'person.corrected' AND subject_id = $1`,
      [ws.personId],
    );
    expect(audits).toEqual([{ data: { fields: ['name', 'email', 'phone'] } }]);
  });

  describe('erasure', () => {
    let chainIds: string[];
    let before: Map<string, ChainEntryJson[]>;
    let erased: request.Response;

    /** Rows of every table whose text, json or array columns mention `needle`. */
    async function mentions(needle: string): Promise<string[]> {
      const cols = await t.db.query<{ table_name: string; column_name: string }[]>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
           JOIN information_schema.tables tb
             ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
          WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
            AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY')`,
      );
      expect(cols.length).toBeGreaterThan(100);
      const found: string[] = [];
      for (const c of cols) {
        const [{ n }] = await t.db.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM "${c.table_name}"
            WHERE strpos(lower("${c.column_name}"::text), lower($1)) > 0`,
          [needle],
        );
        if (n > 0) {
          found.push(`${c.table_name}.${c.column_name}`);
        }
      }
      return found;
    }

    beforeAll(async () => {
      const rows = await t.db.query<{ id: string }[]>(
        `SELECT receipt_id AS id FROM payment_intents
          WHERE (buyer_workspace_id = $1 OR seller_workspace_id = $1) AND receipt_id IS NOT NULL
         UNION SELECT receipt_id FROM forex_files WHERE workspace_id = $1`,
        [ws.workspaceId],
      );
      chainIds = rows.map((r) => r.id);
      before = new Map();
      for (const id of chainIds) {
        before.set(id, await t.get(ChainService).entries(id));
      }
      // The personal values really were stored before: the checks after erasure mean something.
      expect(await mentions(name)).toEqual(expect.arrayContaining(['persons.name']));
      expect(await mentions(name)).toEqual(expect.arrayContaining(['forex_files.traveller_name']));
      expect(await mentions(phone)).toEqual(expect.arrayContaining(['persons.phone']));
      expect(await mentions(email)).toEqual(
        expect.arrayContaining([
          'checkout_sessions.buyer',
          'checkout_sessions.fulfillment_details',
        ]),
      );

      const confirm = await page(person, '/app/your-data/erase').expect(200);
      expect(confirm.text).toContain('cannot be undone');
      const unconfirmed = await post(person, '/app/your-data/erase');
      expect(unconfirmed.status).toBe(400);
      expect(unconfirmed.text).toContain('Tick the box to confirm that erasure cannot be undone');
      erased = await post(person, '/app/your-data/erase', { understood: 'yes' });
    }, 60_000);

    it('signs the person out and lists the kept records with their legal reason', async () => {
      expect(erased.status).toBe(200);
      expect(String(erased.headers['set-cookie'])).toMatch(/svc_session=;/);
      expect(erased.text).toContain('Payments and their signed receipts');
      expect(erased.text).toContain('Forex files');
      expect(erased.text).toContain('Prevention of Money-laundering Act 2002');
      expect(erased.text).toContain('to be confirmed');
      const [row] = await t.db.query<{ kept: { kind: string; rule: string }[] }[]>(
        'SELECT kept FROM personal_data_erasures WHERE person_id = $1',
        [ws.personId],
      );
      expect(row.kept.map((k) => k.kind).sort()).toEqual([
        'forex_records',
        'mandate_records',
        'payment_records',
        'refund_records',
      ]);
      expect(row.kept.every((k) => k.rule.length > 20)).toBe(true);
    });

    it('clears the ACP buyer contact and fulfillment details of the purchase, keeping the session', async () => {
      const rows = await t.db.query<{ buyer: unknown; fulfillment_details: unknown }[]>(
        `SELECT s.buyer, s.fulfillment_details FROM checkout_sessions s
           JOIN payment_intents i ON i.source_kind = 'checkout' AND i.source_id = s.id
          WHERE i.buyer_workspace_id = $1`,
        [ws.workspaceId],
      );
      expect(rows).toEqual([{ buyer: null, fulfillment_details: null }]);
    });

    it('leaves no name, email or phone in any table', async () => {
      expect(await mentions(name)).toEqual([]);
      expect(await mentions(email)).toEqual([]);
      expect(await mentions(phone)).toEqual([]);
    });

    it('keeps the kept records, and every chain of the workspace still verifies offline', async () => {
      expect(chainIds.length).toBe(3);
      const jwks = (await request(t.url).get('/.well-known/jwks.json').expect(200))
        .body as JSONWebKeySet;
      for (const id of chainIds) {
        const after = await t.get(ChainService).entries(id);
        expect(after).toEqual(before.get(id));
        expect(await verifyChain(after, jwks)).toEqual({
          valid: true,
          length: after.length,
          first_bad_seq: null,
          reason: null,
        });
      }
      const [file] = await t.db.query<Record<string, unknown>[]>(
        'SELECT traveller_name, notes, traveller_name_salt, pan_masked, erased_at FROM forex_files WHERE id = $1',
        [forexFileId],
      );
      expect(file).toMatchObject({
        traveller_name: 'Erased',
        notes: null,
        traveller_name_salt: null,
      });
      expect(file.pan_masked).toEqual(expect.any(String));
      const [intent] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM payment_intents WHERE id = $1',
        [intentId],
      );
      expect(intent.n).toBe(1);
    });

    it('cannot sign in again, old sessions and keys stop working', async () => {
      await expect(signIn(t, email, ws.password)).rejects.toThrow(/sign-in failed/);
      const old = await page(person, '/app/your-data');
      expect(old.status).toBe(303);
      await request(t.url).get('/v1/pay/mandates').set(bearer(ws.buyer.credential)).expect(401);
      await request(t.url).get('/v1/api-keys').set(bearer(ws.apiKey)).expect(401);
      const [m] = await t.db.query<{ status: string }[]>(
        'SELECT status FROM mandates WHERE id = $1',
        [mandateId],
      );
      expect(m.status).toBe('revoked');
      const consents = await t.db.query<{ withdrawn_at: Date | null }[]>(
        `SELECT withdrawn_at FROM consent_records WHERE workspace_id = $1 AND kind <> 'forex_declaration'`,
        [ws.workspaceId],
      );
      expect(consents.every((c) => c.withdrawn_at !== null)).toBe(true);
    });

    it('leaves the other workspace untouched', async () => {
      const s = await signIn(t, other.email, other.password);
      const x = await download(s);
      expect(x.profile.email).toBe(other.email);
      expect(x.payments.map((p: { id: string }) => p.id)).toEqual([otherIntentId]);
    });
  });
});
