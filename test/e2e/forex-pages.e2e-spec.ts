import request from 'supertest';

import { verifyChain } from '../../src/chains/verify-chain';
import { verhoeffCheckDigit } from '../../src/forex/aadhaar';
import { ForexDeskService } from '../../src/forex/forex-desk.service';
import { SandboxService } from '../../src/sandbox/sandbox.service';
import { AppSession, csrfFieldOf, signIn } from '../factories/app-session.factory';
import { PDF, readyTravelFile, registerPartner, SeededPartner } from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The people's side through the app's forms (session + CSRF): the file's person confirms the
 * Form A2 / LRS declaration; the partner's dealer works the desk (queue, file, documents,
 * checklist, quote), books, returns or rejects, and edits the rates table. No bearer credential
 * can confirm or book; a dealer of another partner, and anyone else, gets 404.
 */
describe('forex pages (declaration and dealer desk)', () => {
  let t: TestApp;
  let partner: SeededPartner;
  let dealer: AppSession;

  beforeAll(async () => {
    t = await startApp();
    partner = await registerPartner(t);
    dealer = await signIn(t, partner.dealer.email, partner.dealer.password);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const page = (s: AppSession, path: string) => request(t.url).get(path).set('Cookie', s.cookie);
  async function post(s: AppSession, path: string, fields: Record<string, string> = {}) {
    const csrf = csrfFieldOf((await page(s, '/app').expect(200)).text);
    return request(t.url)
      .post(path)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrf, ...fields });
  }
  const fileRow = async (id: string) =>
    (
      await t.db.query<Record<string, unknown>[]>(`SELECT * FROM forex_files WHERE id = $1`, [id])
    )[0];
  const events = async (agentId: string, type: string) =>
    t.db.query<{ subject_id: string; payload: { data: Record<string, unknown> } }[]>(
      `SELECT subject_id, payload FROM outbox_events WHERE agent_id = $1 AND type = $2`,
      [agentId, type],
    );

  /** A submitted travel file (waiting for the declaration) and its person's session. */
  async function submitted(): Promise<{
    ws: SeededWorkspace;
    fileId: string;
    person: AppSession;
    fx: Awaited<ReturnType<typeof readyTravelFile>>['fx'];
  }> {
    const ws = await seedWorkspace(t);
    const { fileId, fx } = await readyTravelFile(t, ws, partner.partnerId, [
      { currency: 'USD', amount: '2000', product: 'card' },
      { currency: 'USD', amount: '500', product: 'notes' },
    ]);
    await fx.submit(fileId).expect(200);
    return { ws, fileId, fx, person: await signIn(t, ws.email, ws.password) };
  }

  async function declared() {
    const s = await submitted();
    const res = await post(s.person, `/app/forex/declarations/${s.fileId}/declare`, {
      confirm: 'yes',
    });
    expect(res.status).toBe(303);
    return s;
  }

  it('the person declares through the form, and the dealer books at the locked rate', async () => {
    const { ws, fileId, fx, person } = await submitted();
    const list = await page(person, '/app/forex/declarations').expect(200);
    expect(list.text).toContain(`data-file="${fileId}"`);
    expect(list.text).toContain('href="/app/forex/declarations"');
    expect(list.text).not.toContain('Dealer desk');

    const view = await page(person, `/app/forex/declarations/${fileId}`).expect(200);
    expect(view.headers['cache-control']).toContain('no-store');
    expect(view.text).toContain('S0306');
    // USD 2,000 × ₹83.9312 + USD 500 × ₹85.15 = ₹2,10,437.40, plus the ₹500 fee.
    expect(view.text).toContain('₹2,10,937.40');
    expect(view.text).toMatch(/class="tcs">₹0\.00/);
    expect(view.text).toContain('used before this file USD 0.00');
    expect(view.text).toContain('name="confirm"');

    // Without ticking the box nothing happens.
    const unticked = await post(person, `/app/forex/declarations/${fileId}/declare`);
    expect(unticked.status).toBe(400);
    expect((await fileRow(fileId)).status).toBe('awaiting_declaration');
    // Without the CSRF token nothing happens either.
    const noCsrf = await request(t.url)
      .post(`/app/forex/declarations/${fileId}/declare`)
      .set('Cookie', person.cookie)
      .type('form')
      .send({ confirm: 'yes' });
    expect(noCsrf.status).toBe(403);
    expect((await fileRow(fileId)).status).toBe('awaiting_declaration');

    const done = await post(person, `/app/forex/declarations/${fileId}/declare`, {
      confirm: 'yes',
    });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/app/forex/declarations/${fileId}`);
    expect(await fileRow(fileId)).toMatchObject({ status: 'submitted', declared_by: ws.personId });
    const again = await post(person, `/app/forex/declarations/${fileId}/declare`, {
      confirm: 'yes',
    });
    expect(again.status).toBe(409);

    const queue = await page(dealer, '/app/forex/desk').expect(200);
    expect(queue.text).toContain(`data-file="${fileId}"`);
    expect(queue.text).toContain('Dealer desk');
    const desk = await page(dealer, `/app/forex/desk/files/${fileId}`).expect(200);
    expect(desk.text).toContain('data-key="passport" data-status="done"');
    expect(desk.text).toContain('data-key="declaration" data-status="done"');
    expect(desk.text).toContain('₹83.9312');
    const docId = /data-document="(fxd_[^"]+)"/.exec(desk.text)![1];
    const download = await page(dealer, `/app/forex/desk/files/${fileId}/documents/${docId}`)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(download.headers['content-type']).toContain('application/pdf');
    expect(download.headers['content-disposition']).toMatch(/^attachment/);
    expect(Buffer.compare(download.body as Buffer, PDF)).toBe(0);

    const booked = await post(dealer, `/app/forex/desk/files/${fileId}/book`, {
      deal_reference: 'DL-2026-0042',
    });
    expect(booked.status).toBe(303);
    expect(await fileRow(fileId)).toMatchObject({
      status: 'booked',
      deal_reference: 'DL-2026-0042',
      decided_by: partner.dealer.personId,
    });
    const status = (await fx.status(fileId)).body;
    expect(status).toMatchObject({
      status: 'booked',
      deal_reference: 'DL-2026-0042',
      declaration: { status: 'declared' },
      dealer_notes: [{ action: 'booked', note: 'DL-2026-0042', dealer_name: 'Dee Dealer' }],
    });
    expect(status.booked_at).toEqual(expect.any(String));
    const [event] = await events(ws.buyer.id, 'forex.booked');
    expect(event.payload.data).toMatchObject({
      file_id: fileId,
      deal_reference: 'DL-2026-0042',
      status: 'booked',
    });
    expect(event.payload.data.lines).toEqual(status.quote.lines);

    const receipt = (await fx.get(`/v1/pay/forex/orders/${fileId}/receipt`).expect(200)).body;
    const types = (receipt.entries as { payload: { type: string } }[]).map((e) => e.payload.type);
    expect(types.slice(-3)).toEqual(['forex.submitted', 'forex.declared', 'forex.booked']);
    const jwks = (await request(t.url).get('/.well-known/jwks.json')).body;
    expect(await verifyChain(receipt.entries, jwks)).toMatchObject({ valid: true, length: 7 });
    // Booked is final.
    expect(
      (await post(dealer, `/app/forex/desk/files/${fileId}/reject`, { note: 'x' })).status,
    ).toBe(409);
  });

  it('a returned file goes back to the agent with the note, is fixed and resubmitted, then rejected', async () => {
    const { ws, fileId, fx, person } = await declared();
    const ret = await post(dealer, `/app/forex/desk/files/${fileId}/return`, {
      note: 'The visa page is unreadable; upload it again',
    });
    expect(ret.status).toBe(303);
    const status = (await fx.status(fileId)).body;
    expect(status).toMatchObject({
      status: 'returned',
      dealer_notes: [{ action: 'returned', note: 'The visa page is unreadable; upload it again' }],
      checklist: { complete: false },
    });
    expect(status.checklist.missing).toContain('quote');
    const [returned] = await events(ws.buyer.id, 'forex.returned');
    expect(returned).toMatchObject({ subject_id: `${fileId}:returned:1` });
    // Off the dealer's queue once the agent works on it again.
    await fx.upload(fileId, 'visa', PDF).expect(201);
    await fx.quote(fileId, [{ currency: 'USD', amount: '2500', product: 'card' }]).expect(201);
    expect((await page(dealer, `/app/forex/desk/files/${fileId}`)).status).toBe(404);
    await fx.submit(fileId).expect(200);
    expect(
      (await post(person, `/app/forex/declarations/${fileId}/declare`, { confirm: 'yes' })).status,
    ).toBe(303);
    const rej = await post(dealer, `/app/forex/desk/files/${fileId}/reject`, {
      note: 'Purpose not supported',
    });
    expect(rej.status).toBe(303);
    expect(await fileRow(fileId)).toMatchObject({ status: 'rejected', submissions: 2, returns: 1 });
    expect(await events(ws.buyer.id, 'forex.rejected')).toHaveLength(1);
    expect((await fx.status(fileId)).body.dealer_notes).toHaveLength(2);
  });

  it('a dealer needs a deal reference, and an Aadhaar number in a note is refused', async () => {
    const { fileId } = await declared();
    const empty = await post(dealer, `/app/forex/desk/files/${fileId}/book`, {
      deal_reference: '  ',
    });
    expect(empty.status).toBe(400);
    const aadhaar = `38765432109${verhoeffCheckDigit('38765432109')}`;
    const refused = await post(dealer, `/app/forex/desk/files/${fileId}/return`, {
      note: `Customer Aadhaar ${aadhaar}`,
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Aadhaar is not collected');
    expect(refused.text).not.toContain(aadhaar);
    expect(await fileRow(fileId)).toMatchObject({ status: 'submitted', dealer_notes: [] });
  });

  it('a dealer of another partner, another person and a non-dealer see 404', async () => {
    const { fileId, ws } = await declared();
    const other = await registerPartner(t);
    const otherDealer = await signIn(t, other.dealer.email, other.dealer.password);
    expect((await page(otherDealer, `/app/forex/desk/files/${fileId}`)).status).toBe(404);
    expect((await page(otherDealer, '/app/forex/desk').expect(200)).text).not.toContain(fileId);
    expect(
      (await post(otherDealer, `/app/forex/desk/files/${fileId}/book`, { deal_reference: 'X1' }))
        .status,
    ).toBe(404);
    const docs = await t.db.query(`SELECT id FROM forex_documents WHERE file_id = $1`, [fileId]);
    expect(
      (await page(otherDealer, `/app/forex/desk/files/${fileId}/documents/${docs[0].id as string}`))
        .status,
    ).toBe(404);
    expect((await fileRow(fileId)).status).toBe('submitted');

    const stranger = await seedWorkspace(t);
    const strangerSession = await signIn(t, stranger.email, stranger.password);
    expect((await page(strangerSession, `/app/forex/declarations/${fileId}`)).status).toBe(404);
    // The file's own person is not a dealer: no desk.
    const person = await signIn(t, ws.email, ws.password);
    expect((await page(person, '/app/forex/desk')).status).toBe(404);
    expect(
      (await post(person, `/app/forex/desk/files/${fileId}/book`, { deal_reference: 'X1' })).status,
    ).toBe(404);
  });

  it('no API key, agent credential or protocol key can confirm or book', async () => {
    const { ws, fileId } = await submitted();
    for (const bearer of [ws.apiKey, ws.buyer.credential, ws.merchantKey]) {
      const auth = { Authorization: `Bearer ${bearer}` };
      const declare = await request(t.url)
        .post(`/app/forex/declarations/${fileId}/declare`)
        .set(auth)
        .type('form')
        .send({ confirm: 'yes' });
      expect(declare.status).toBe(401);
      const book = await request(t.url)
        .post(`/app/forex/desk/files/${fileId}/book`)
        .set(auth)
        .type('form')
        .send({ deal_reference: 'X' });
      expect(book.status).toBe(401);
      for (const path of ['book', 'declare', 'confirm']) {
        const api = await request(t.url)
          .post(`/v1/pay/forex/orders/${fileId}/${path}`)
          .set(auth)
          .send({});
        expect(api.status).toBe(404);
      }
    }
    expect((await fileRow(fileId)).status).toBe('awaiting_declaration');
  });

  it('the dealer edits the rates table; JPY is entered per 100 and stored per yen', async () => {
    const rates = await page(dealer, '/app/forex/desk/rates').expect(200);
    expect(rates.text).toContain('name="notes_buy" value="54.1000"');
    const saved = await post(dealer, '/app/forex/desk/rates/JPY', {
      notes_buy: '54.0000',
      notes_sell: '57.5000',
      card_buy: '55.1000',
      card_sell: '57.1234',
    });
    expect(saved.status).toBe(303);
    const ws = await seedWorkspace(t);
    const api = await request(t.url)
      .get(`/v1/pay/forex/partners/${partner.partnerId}/rates`)
      .set('Authorization', `Bearer ${ws.buyer.credential}`)
      .expect(200);
    const jpy = (
      api.body.rates as { currency: string; notes: object; card_remittance: object }[]
    ).find((r) => r.currency === 'JPY');
    // 57.1234 per 100 = 5712.34 ten-thousandths per yen → 5712.
    expect(jpy).toMatchObject({
      notes: { buy: 5400, sell: 5750 },
      card_remittance: { buy: 5510, sell: 5712 },
    });
    const bad = await post(dealer, '/app/forex/desk/rates/USD', {
      notes_buy: '90.0000',
      notes_sell: '85.0000',
      card_buy: '83.0000',
      card_sell: '84.0000',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('buy rate may not be above the sell rate');
    const notNumber = await post(dealer, '/app/forex/desk/rates/USD', {
      notes_buy: '1e2',
      notes_sell: '85.0000',
      card_buy: '83.0000',
      card_sell: '84.0000',
    });
    expect(notNumber.status).toBe(400);
    const person = await signIn(t, ws.email, ws.password);
    expect(
      (
        await post(person, '/app/forex/desk/rates/JPY', {
          notes_buy: '1',
          notes_sell: '2',
          card_buy: '1',
          card_sell: '2',
        })
      ).status,
    ).toBe(404);
  });

  it('an undeclared file expires after 24 hours: on the page and through the sweep', async () => {
    const a = await submitted();
    const b = await submitted();
    t.clock.advance(24 * 3600_000);
    // Sign-in sessions last 12 hours: the person comes back the next day.
    const person = await signIn(t, a.ws.email, a.ws.password);
    const late = await post(person, `/app/forex/declarations/${a.fileId}/declare`, {
      confirm: 'yes',
    });
    expect(late.status).toBe(409);
    expect(late.text).toContain('time to confirm this declaration has passed');
    expect((await fileRow(a.fileId)).status).toBe('expired');
    expect((await b.fx.status(b.fileId)).body).toMatchObject({
      status: 'expired',
      declaration: { status: 'expired' },
    });
    expect(await t.get(ForexDeskService).expireOverdue()).toBeGreaterThanOrEqual(1);
    expect((await fileRow(b.fileId)).status).toBe('expired');
    const receipt = (await b.fx.get(`/v1/pay/forex/orders/${b.fileId}/receipt`)).body;
    expect(receipt.entries.at(-1).payload.type).toBe('forex.expired');
  });

  it('the sandbox seeds one partner with one dealer, found again on every run with a fresh password', async () => {
    const first = await t.get(SandboxService).bootstrap();
    const second = await t.get(SandboxService).bootstrap();
    expect(second.forex).toMatchObject({
      partner_id: first.forex.partner_id,
      licence_number: 'FE.SBX.AD2.0001',
      dealer: { email: 'dealer@sandbox.local' },
    });
    expect(second.forex.dealer.password).not.toBe(first.forex.dealer.password);
    const session = await signIn(t, second.forex.dealer.email, second.forex.dealer.password);
    const desk = await page(session, '/app/forex/desk').expect(200);
    expect(desk.text).toContain('FE.SBX.AD2.0001');
    await expect(
      signIn(t, first.forex.dealer.email, first.forex.dealer.password),
    ).rejects.toThrow();
    const rates = await request(t.url)
      .get(`/v1/pay/forex/partners/${second.forex.partner_id}/rates`)
      .set('Authorization', `Bearer ${second.buyer.credential}`)
      .expect(200);
    expect(rates.body.rates).toHaveLength(7);
    // The demo person is not a dealer; the dealer's workspace has no live API key.
    const demo = await signIn(t, second.person.email, second.person.password);
    expect((await page(demo, '/app/forex/desk')).status).toBe(404);
    const keys = await t.db.query(
      `SELECT count(*)::int AS n FROM api_keys k JOIN forex_partners p ON p.workspace_id = k.workspace_id
        WHERE p.id = $1 AND k.revoked_at IS NULL`,
      [second.forex.partner_id],
    );
    expect(keys[0].n).toBe(0);
  });
});
