import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import request from 'supertest';

import { verifyChain } from '../../src/chains/verify-chain';
import { ForexPartnersService } from '../../src/forex/forex-partners.service';
import {
  daysAhead,
  forexClient,
  PDF,
  randomPan,
  readyTravelFile,
  registerPartner,
  SeededPartner,
  travelFile,
} from '../factories/forex.factory';
import { startApp, TestApp } from '../support/app';
import { expectContractResponse } from '../support/contract-validator';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * The agent's forex API over HTTP on real Postgres: partners and rates (JPY per 100 converted),
 * files (validation per kind and purpose, the 60-day window, idempotency), quotes (exact rupees,
 * fee, TCS at its boundaries), the checklist and submit (missing items named, lapsed lock with the
 * test clock, LRS across files and the financial-year boundary, cash limit, concurrent submits),
 * status and the receipt verified offline.
 */
describe('forex files (agent API)', () => {
  let t: TestApp;
  let partner: SeededPartner;

  beforeAll(async () => {
    t = await startApp();
    partner = await registerPartner(t);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  /** Moves the test clock so that it reads `at` now (it keeps running from there). */
  function setClock(at: Date): void {
    t.clock.reset();
    t.clock.advance(at.getTime() - Date.now());
  }

  /** Sets the partner's USD card/remittance sell rate (a dealer's edit), e.g. '80.0000'. */
  async function setUsdCardSell(p: SeededPartner, rupees: string): Promise<void> {
    await t
      .get(ForexPartnersService)
      .setRates({ personId: p.dealer.personId, workspaceId: p.workspaceId }, 'USD', {
        notesBuy: '79.0000',
        notesSell: rupees,
        cardBuy: '79.5000',
        cardSell: rupees,
      });
  }

  function remittance(ws: SeededWorkspace, p: SeededPartner, pan: string, over = {}) {
    return {
      partner_id: p.partnerId,
      kind: 'remittance',
      purpose_code: 'S1301',
      person_email: ws.email,
      traveller_name: 'Asha Rao',
      beneficiary_name: 'Ravi Rao',
      destination_country: 'GB',
      pan,
      ...over,
    };
  }

  /** A remittance file for `pan`, quoted for `usd` and submitted; returns the submit answer. */
  async function remitAndSubmit(ws: SeededWorkspace, p: SeededPartner, pan: string, usd: string) {
    const fx = forexClient(t, ws.buyer.credential);
    const created = await fx.createFile(remittance(ws, p, pan));
    expect(created.status).toBe(201);
    const q = await fx.quote(created.body.id, [
      { currency: 'USD', amount: usd, product: 'remittance' },
    ]);
    expect(q.status).toBe(201);
    return {
      fileId: created.body.id as string,
      quote: q.body,
      submit: await fx.submit(created.body.id),
    };
  }

  describe('partners and rates', () => {
    it('lists partners with pagination and serves rates per one unit (JPY converted from per 100)', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      await registerPartner(t);
      const first = await fx.get('/v1/pay/forex/partners?limit=1').expect(200);
      expectContractResponse('/v1/pay/forex/partners', 'get', 200, first.body);
      expect(first.body.data).toHaveLength(1);
      expect(first.body.has_more).toBe(true);
      const next = await fx
        .get(`/v1/pay/forex/partners?limit=1&starting_after=${first.body.next_cursor as string}`)
        .expect(200);
      expect(next.body.data[0].id).not.toBe(first.body.data[0].id);
      expect(first.body.data[0]).toMatchObject({
        category: 'AD Category-II',
        object: 'forex_partner',
      });

      const rates = await fx.get(`/v1/pay/forex/partners/${partner.partnerId}/rates`).expect(200);
      expectContractResponse('/v1/pay/forex/partners/{id}/rates', 'get', 200, rates.body);
      const by = Object.fromEntries(
        (rates.body.rates as { currency: string; set_at: string }[]).map((r) => [r.currency, r]),
      );
      expect(Object.keys(by).sort()).toEqual(['AED', 'EUR', 'GBP', 'JPY', 'SGD', 'THB', 'USD']);
      // ₹83.9312 per USD is 839312; JPY is fed at ₹56.7312 per 100 yen → 5673.12 → 5673 per yen.
      expect(by.USD).toMatchObject({ card_remittance: { sell: 839312 }, market_quotes_per: 1 });
      expect(by.JPY).toMatchObject({
        card_remittance: { sell: 5673, buy: 5500 },
        notes: { buy: 5410, sell: 5765 },
        minor_units: 0,
        market_quotes_per: 100,
      });
      expect(by.USD.set_at).toEqual(expect.any(String));
      await fx.get('/v1/pay/forex/partners/fxp_nope/rates').expect(404);
    });

    it('takes an agent credential: an API key is refused', async () => {
      const ws = await seedWorkspace(t);
      await request(t.url)
        .get('/v1/pay/forex/partners')
        .set('Authorization', `Bearer ${ws.apiKey}`)
        .expect(403);
      await request(t.url).get('/v1/pay/forex/partners').expect(401);
    });
  });

  describe('creating a file', () => {
    it('creates a draft with a masked PAN, replays on the same key and needs the key', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const body = travelFile(t, ws, partner.partnerId, { pan: 'abcpe1234f' });
      const key = `k-${randomUUID()}`;
      const res = await fx.createFile(body, key);
      expect(res.status).toBe(201);
      expectContractResponse('/v1/pay/forex/orders', 'post', 201, res.body);
      expect(res.body).toMatchObject({
        object: 'forex_file',
        status: 'draft',
        kind: 'travel',
        pan_masked: 'XXXXX1234F',
        person_id: ws.personId,
        quote: null,
        declaration: { status: 'not_requested' },
      });
      expect(JSON.stringify(res.body)).not.toMatch(/abcpe|ABCPE/);
      expect(res.body.checklist.missing).toEqual(['passport', 'visa_or_ticket', 'quote']);

      const replay = await fx.createFile(body, key);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.id).toBe(res.body.id);
      const other = await fx.createFile({ ...body, pan: 'ABCPE1234G' }, key);
      expect(other.status).toBe(422);

      const noKey = await fx.createFile(body, null);
      expect(noKey.status).toBe(400);
      expect(noKey.body.error).toMatchObject({
        code: 'idempotency_key_required',
        param: 'Idempotency-Key',
      });
      const rows = await t.db.query(
        `SELECT count(*)::int AS n FROM forex_files WHERE agent_id = $1`,
        [ws.buyer.id],
      );
      expect(rows[0].n).toBe(1);
    });

    it.each([
      [{ kind: 'tour' }, '$.kind', 'invalid_kind'],
      [{ purpose_code: 'S9999' }, '$.purpose_code', 'unknown_purpose_code'],
      [{ purpose_code: 'S1301' }, '$.purpose_code', 'purpose_not_allowed'],
      [{ pan: 'ABCCE1234F' }, '$.pan', 'invalid_pan_holder_type'],
      [{ pan: 'ABC1E1234F' }, '$.pan', 'invalid_pan'],
      [{ destination_country: 'NP' }, '$.destination_country', 'destination_not_allowed'],
      [{ destination_country: 'IN' }, '$.destination_country', 'invalid_destination'],
      [{ departure_date: undefined }, '$.departure_date', 'missing'],
      [{ departure_date: '2026-02-30' }, '$.departure_date', 'invalid_date'],
      [{ person_email: 'nobody@example.test' }, '$.person_email', 'person_not_found'],
      [{ education_loan_funded: true }, '$.education_loan_funded', 'invalid'],
      [{ traveller_name: '   ' }, '$.traveller_name', 'missing'],
      [{ partner_id: 'fxp_nope' }, '$.partner_id', 'forex_partner_not_found'],
    ])('refuses %j (%s %s) and stores nothing', async (over, param, code) => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const res = await fx.createFile(travelFile(t, ws, partner.partnerId, over));
      expect([400, 404]).toContain(res.status);
      expect(res.body.error).toMatchObject({ code, param });
      const rows = await t.db.query(
        `SELECT count(*)::int AS n FROM forex_files WHERE agent_id = $1`,
        [ws.buyer.id],
      );
      expect(rows[0].n).toBe(0);
    });

    it('takes forex at most 60 days before departure (IST): day 60 yes, day 61 no, past no', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const mk = (d: string) =>
        fx.createFile(
          travelFile(t, ws, partner.partnerId, { departure_date: d, return_date: undefined }),
        );
      expect((await mk(daysAhead(t, 60))).status).toBe(201);
      expect((await mk(daysAhead(t, 0))).status).toBe(201);
      const far = await mk(daysAhead(t, 61));
      expect(far.status).toBe(400);
      expect(far.body.error.code).toBe('departure_too_far');
      expect((await mk(daysAhead(t, -1))).body.error.code).toBe('departure_in_past');
    });

    it('corporate travel needs the company PAN and name; a seller-only agent cannot open files', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const corp = travelFile(t, ws, partner.partnerId, {
        kind: 'corporate_travel',
        purpose_code: 'S0301',
        pan: randomPan('C'),
        company_name: 'Rao Exports Pvt Ltd',
      });
      expect((await fx.createFile(corp)).status).toBe(201);
      expect((await fx.createFile({ ...corp, pan: randomPan('P') })).body.error.code).toBe(
        'invalid_pan_holder_type',
      );
      expect((await fx.createFile({ ...corp, company_name: undefined })).body.error.param).toBe(
        '$.company_name',
      );
      const seller = forexClient(t, ws.seller.credential);
      const res = await seller.createFile(travelFile(t, ws, partner.partnerId));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('wrong_agent_role');
    });

    it("lists the agent's files newest first with pagination; another agent's file is 404", async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await fx.createFile(travelFile(t, ws, partner.partnerId))).body.id);
      }
      const page1 = await fx.get('/v1/pay/forex/orders?limit=2').expect(200);
      expectContractResponse('/v1/pay/forex/orders', 'get', 200, page1.body);
      expect(page1.body.data.map((f: { id: string }) => f.id)).toEqual([ids[2], ids[1]]);
      const page2 = await fx
        .get(`/v1/pay/forex/orders?limit=2&starting_after=${page1.body.next_cursor as string}`)
        .expect(200);
      expect(page2.body).toMatchObject({ has_more: false, data: [{ id: ids[0] }] });
      expect((await fx.get('/v1/pay/forex/orders?status=booked').expect(200)).body.data).toEqual(
        [],
      );

      const other = await seedWorkspace(t);
      const ofx = forexClient(t, other.buyer.credential);
      expect((await ofx.status(ids[0])).status).toBe(404);
      expect(
        (await ofx.quote(ids[0], [{ currency: 'USD', amount: '10', product: 'card' }])).status,
      ).toBe(404);
      expect((await ofx.submit(ids[0])).status).toBe(404);
      expect((await ofx.upload(ids[0], 'passport', PDF)).status).toBe(404);
      expect((await ofx.get(`/v1/pay/forex/orders/${ids[0]}/receipt`)).status).toBe(404);
    });
  });

  describe('quotes', () => {
    it('prices exactly, adds the fee and locks the rates for 15 minutes', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const file = (await fx.createFile(travelFile(t, ws, partner.partnerId))).body;
      const res = await fx.quote(file.id, [
        { currency: 'USD', amount: '1000.5', product: 'card' },
        { currency: 'JPY', amount: '12000', product: 'notes' },
      ]);
      expect(res.status).toBe(201);
      expectContractResponse('/v1/pay/forex/quotes', 'post', 201, res.body);
      // 1000.50 × 83.9312 = 83,973.16… → ₹83,973.17 (8397316.56 paise, half up); 12,000 × 0.5765 = ₹6,918.00
      expect(res.body.lines).toEqual([
        expect.objectContaining({
          currency: 'USD',
          foreign_amount: '1000.50',
          rate: 839312,
          rupees_paise: 8_397_317,
        }),
        expect.objectContaining({
          currency: 'JPY',
          foreign_amount: '12000',
          rate: 5765,
          rupees_paise: 691_800,
        }),
      ]);
      expect(res.body).toMatchObject({
        rupees_paise: 9_089_117,
        fee_paise: 50_000,
        tcs_paise: 0,
        total_paise: 9_139_117,
        direction: 'person_pays',
      });
      const created = Date.parse(res.body.created_at);
      expect(Date.parse(res.body.rate_locked_until) - created).toBe(15 * 60_000);
      const status = (await fx.status(file.id)).body;
      expect(status).toMatchObject({ status: 'quoted', quote: { id: res.body.id } });
      expectContractResponse('/v1/pay/forex/orders/{id}', 'get', 200, status);
    });

    it.each([
      ['1e3', 'invalid_amount'],
      ['-5', 'invalid_amount'],
      ['1,000', 'invalid_amount'],
      ['10.001', 'invalid_amount'],
      ['0', 'invalid_amount'],
    ])('refuses amount %j', async (amount, code) => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const file = (await fx.createFile(travelFile(t, ws, partner.partnerId))).body;
      const res = await fx.quote(file.id, [
        { currency: 'USD', amount: '10', product: 'card' },
        { currency: 'USD', amount, product: 'card' },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code, param: '$.lines[1].amount' });
      const q = await t.db.query(`SELECT count(*)::int AS n FROM forex_quotes WHERE file_id = $1`, [
        file.id,
      ]);
      expect(q[0].n).toBe(0);
    });

    it('refuses a number, a product the kind does not take, an unknown currency, and a missing key', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const file = (await fx.createFile(travelFile(t, ws, partner.partnerId))).body;
      const num = await fx.quote(file.id, [{ currency: 'USD', amount: 10, product: 'card' }]);
      expect(num.body.error.param).toBe('$.lines[0].amount');
      const prod = await fx.quote(file.id, [
        { currency: 'USD', amount: '10', product: 'remittance' },
      ]);
      expect(prod.body.error).toMatchObject({
        code: 'product_not_allowed',
        param: '$.lines[0].product',
      });
      const cur = await fx.quote(file.id, [{ currency: 'XYZ', amount: '10', product: 'card' }]);
      expect(cur.body.error).toMatchObject({ code: 'unsupported_currency' });
      const yen = await fx.quote(file.id, [{ currency: 'JPY', amount: '10.5', product: 'card' }]);
      expect(yen.body.error.code).toBe('invalid_amount');
      const noKey = await fx.quote(
        file.id,
        [{ currency: 'USD', amount: '10', product: 'card' }],
        null,
      );
      expect(noKey.body.error.code).toBe('idempotency_key_required');
    });

    it('buy-back pays the person at the buy rate, less the fee, with no TCS', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const file = (
        await fx.createFile({
          ...travelFile(t, ws, partner.partnerId),
          kind: 'buy_back',
          departure_date: undefined,
          return_date: daysAhead(t, -3),
        })
      ).body;
      const q = await fx.quote(file.id, [{ currency: 'USD', amount: '200', product: 'notes' }]);
      expect(q.status).toBe(201);
      // 200 × 82.6500 = ₹16,530.00, less ₹500 fee
      expect(q.body).toMatchObject({
        direction: 'person_receives',
        rupees_paise: 1_653_000,
        total_paise: 1_603_000,
        tcs_paise: 0,
        tcs: null,
      });
      expect(q.body.lines[0]).toMatchObject({ rate: 826500, rate_side: 'buy' });
    });
  });

  describe('TCS (FY 2026-27 and 2025-26 sandbox values)', () => {
    it('is nil up to ₹10 lakh and 20% of the part above for other purposes, across files', async () => {
      const p = await registerPartner(t, { serviceFeePaise: 0 });
      await setUsdCardSell(p, '80.0000');
      const ws = await seedWorkspace(t);
      const pan = randomPan();
      // USD 12,500 × ₹80 = exactly ₹10,00,000: nothing.
      const a = await remitAndSubmit(ws, p, pan, '12500');
      expect(a.quote).toMatchObject({
        rupees_paise: 100_000_000,
        tcs_paise: 0,
        total_paise: 100_000_000,
      });
      expect(a.submit.status).toBe(200);
      // The same PAN's next file is entirely above the threshold: 20% of ₹8.00 (USD 0.10).
      const fx = forexClient(t, ws.buyer.credential);
      const b = (await fx.createFile(remittance(ws, p, pan))).body;
      const qb = await fx.quote(b.id, [{ currency: 'USD', amount: '0.10', product: 'remittance' }]);
      expect(qb.body).toMatchObject({ rupees_paise: 800, tcs_paise: 160, total_paise: 960 });
      expect(qb.body.tcs).toMatchObject({
        prior_paise: 100_000_000,
        above_paise: 800,
        rate_bps: 2000,
      });
      // Another PAN at ₹10,00,000.80: TCS on the 80 paise above only (16 paise).
      const c = (await fx.createFile(remittance(ws, p, randomPan()))).body;
      const qc = await fx.quote(c.id, [
        { currency: 'USD', amount: '12500.01', product: 'remittance' },
      ]);
      expect(qc.body).toMatchObject({ rupees_paise: 100_000_080, tcs_paise: 16 });
    });

    it('education: 2% above the threshold in FY 2026-27, 5% in FY 2025-26, nil when loan-funded', async () => {
      const p = await registerPartner(t, { serviceFeePaise: 0 });
      await setUsdCardSell(p, '80.0000');
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const edu = (over = {}) => remittance(ws, p, randomPan(), { purpose_code: 'S0305', ...over });
      const quoteFor = async (body: object) => {
        const f = (await fx.createFile(body)).body;
        return (await fx.quote(f.id, [{ currency: 'USD', amount: '13750', product: 'remittance' }]))
          .body;
      };
      // ₹11,00,000: ₹1,00,000 above the threshold.
      setClock(new Date('2026-06-01T12:00:00+05:30'));
      expect(await quoteFor(edu())).toMatchObject({
        financial_year: '2026-27',
        tcs_paise: 200_000,
      });
      expect(await quoteFor(edu({ education_loan_funded: true }))).toMatchObject({ tcs_paise: 0 });
      setClock(new Date('2026-03-01T12:00:00+05:30'));
      expect(await quoteFor(edu())).toMatchObject({
        financial_year: '2025-26',
        tcs_paise: 500_000,
      });
      expect(
        await quoteFor(remittance(ws, p, randomPan(), { purpose_code: 'S0304' })),
      ).toMatchObject({ tcs_paise: 500_000 });
    });
  });

  describe('submit', () => {
    it('names what the checklist is missing and submits once it is complete', async () => {
      const ws = await seedWorkspace(t);
      const fx = forexClient(t, ws.buyer.credential);
      const file = (await fx.createFile(travelFile(t, ws, partner.partnerId))).body;
      const early = await fx.submit(file.id);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('forex_file_state');
      await fx.quote(file.id, [{ currency: 'USD', amount: '500', product: 'card' }]);
      const missing = await fx.submit(file.id);
      expect(missing.status).toBe(409);
      expect(missing.body.error.code).toBe('checklist_incomplete');
      expect(missing.body.error.message).toContain('passport');
      expect(missing.body.error.message).toContain('visa_or_ticket');
      await fx.upload(file.id, 'passport', PDF).expect(201);
      await fx.upload(file.id, 'ticket', PDF).expect(201);
      const ok = await fx.submit(file.id);
      expect(ok.status).toBe(200);
      expectContractResponse('/v1/pay/forex/orders/{id}/submit', 'post', 200, ok.body);
      expect(ok.body).toMatchObject({
        status: 'awaiting_declaration',
        checklist: { complete: true },
        declaration: {
          status: 'awaiting',
          url: `${t.config.appUrl}/forex/declarations/${file.id as string}`,
        },
      });
      // Frozen while the person and the dealer look at it.
      expect((await fx.upload(file.id, 'other', PDF)).status).toBe(409);
      expect(
        (await fx.quote(file.id, [{ currency: 'USD', amount: '5', product: 'card' }])).status,
      ).toBe(409);
    });

    it('refuses a lapsed rate lock (controllable clock): 14:59 submits, 15:00 asks for a fresh quote', async () => {
      const ws = await seedWorkspace(t);
      const a = await readyTravelFile(t, ws, partner.partnerId);
      const b = await readyTravelFile(t, ws, partner.partnerId);
      t.clock.advance(14 * 60_000 + 59_000);
      expect((await a.fx.submit(a.fileId)).status).toBe(200);
      t.clock.advance(1_000);
      const late = await b.fx.submit(b.fileId);
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('rate_lock_lapsed');
      expect(late.body.error.message).toMatch(/request a fresh quote/);
      const status = (await b.fx.status(b.fileId)).body;
      expect(status.quote.lock_lapsed).toBe(true);
      expect(status.checklist.items.find((i: { key: string }) => i.key === 'quote')).toMatchObject({
        status: 'failed',
      });
      // A fresh quote makes it submittable again.
      await b.fx
        .quote(b.fileId, [{ currency: 'USD', amount: '1000', product: 'card' }])
        .expect(201);
      expect((await b.fx.submit(b.fileId)).status).toBe(200);
    });

    it('enforces the LRS limit per PAN across files: USD 250,000 fits, a cent more does not', async () => {
      const ws = await seedWorkspace(t);
      const pan = randomPan();
      expect((await remitAndSubmit(ws, partner, pan, '200000')).submit.status).toBe(200);
      const over = await remitAndSubmit(ws, partner, pan, '50000.01');
      expect(over.submit.status).toBe(409);
      expect(over.submit.body.error.code).toBe('checklist_incomplete');
      expect(over.submit.body.error.message).toContain('lrs_limit');
      const exact = await remitAndSubmit(ws, partner, pan, '50000');
      expect(exact.submit.status).toBe(200);
      expect(exact.submit.body.lrs).toMatchObject({
        used_before_usd_cents: 20_000_000,
        this_file_usd_cents: 5_000_000,
        limit_usd_cents: 25_000_000,
      });
      // Another person (PAN) is not affected.
      expect((await remitAndSubmit(ws, partner, randomPan(), '250000')).submit.status).toBe(200);
    });

    it('counts LRS per financial year in IST: 31 March 23:59:59 vs 1 April 00:00', async () => {
      const ws = await seedWorkspace(t);
      const pan = randomPan();
      setClock(new Date('2026-03-31T23:00:00+05:30'));
      expect((await remitAndSubmit(ws, partner, pan, '250000')).submit.status).toBe(200);
      setClock(new Date('2026-03-31T23:59:59+05:30'));
      const late = await remitAndSubmit(ws, partner, pan, '1');
      expect(late.quote.financial_year).toBe('2025-26');
      expect(late.submit.status).toBe(409);
      expect(late.submit.body.error.message).toContain('lrs_limit');
      setClock(new Date('2026-04-01T00:00:00+05:30'));
      const next = await remitAndSubmit(ws, partner, pan, '250000');
      expect(next.quote.financial_year).toBe('2026-27');
      expect(next.submit.status).toBe(200);
      expect(next.submit.body.lrs.used_before_usd_cents).toBe(0);
    });

    it('limits cash to USD 3,000 per trip (USD 5,000 to Iraq; no cap to Russia)', async () => {
      const ws = await seedWorkspace(t);
      const notes = (amount: string) => [{ currency: 'USD', amount, product: 'notes' }];
      const ok = await readyTravelFile(t, ws, partner.partnerId, notes('3000'));
      expect((await ok.fx.submit(ok.fileId)).status).toBe(200);
      const over = await readyTravelFile(t, ws, partner.partnerId, notes('3000.01'));
      const res = await over.fx.submit(over.fileId);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain('cash_limit');
      const iraq = await readyTravelFile(t, ws, partner.partnerId, notes('5000'), {
        destination_country: 'IQ',
      });
      expect((await iraq.fx.submit(iraq.fileId)).status).toBe(200);
      const russia = await readyTravelFile(t, ws, partner.partnerId, notes('9000'), {
        destination_country: 'RU',
      });
      expect((await russia.fx.submit(russia.fileId)).status).toBe(200);
      // Cash beyond the cap can go on a card instead.
      const card = await readyTravelFile(t, ws, partner.partnerId, [
        { currency: 'USD', amount: '3000', product: 'notes' },
        { currency: 'USD', amount: '7000', product: 'card' },
      ]);
      expect((await card.fx.submit(card.fileId)).status).toBe(200);
    });

    it('concurrent submits make exactly one submission', async () => {
      const ws = await seedWorkspace(t);
      const { fileId, fx } = await readyTravelFile(t, ws, partner.partnerId);
      const answers = await Promise.all(Array.from({ length: 8 }, () => fx.submit(fileId)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(7);
      const [row] = await t.db.query(
        `SELECT status, submissions, receipt_id FROM forex_files WHERE id = $1`,
        [fileId],
      );
      expect(row).toMatchObject({ status: 'awaiting_declaration', submissions: 1 });
      const entries = await t.db.query(
        `SELECT count(*)::int AS n FROM chain_entries WHERE chain_id = $1 AND payload->>'type' = 'forex.submitted'`,
        [row.receipt_id],
      );
      expect(entries[0].n).toBe(1);
    });
  });

  it('keeps a signed receipt of every step, verifiable offline, holding no raw PAN', async () => {
    const ws = await seedWorkspace(t);
    const pan = randomPan();
    const { fileId, fx } = await readyTravelFile(t, ws, partner.partnerId, undefined, { pan });
    await fx.submit(fileId).expect(200);
    const res = await fx.get(`/v1/pay/forex/orders/${fileId}/receipt`).expect(200);
    expectContractResponse('/v1/pay/forex/orders/{id}/receipt', 'get', 200, res.body);
    const types = (res.body.entries as { payload: { type: string } }[]).map((e) => e.payload.type);
    expect(types).toEqual([
      'forex.file_created',
      'forex.document_added',
      'forex.document_added',
      'forex.quoted',
      'forex.submitted',
    ]);
    const docs = (await fx.status(fileId)).body.documents as { sha256: string }[];
    expect(res.body.entries[1].payload.sha256).toBe(docs[0].sha256);
    expect(JSON.stringify(res.body)).not.toContain(pan);
    expect(res.body.entries[0].payload.pan_masked).toBe(`XXXXX${pan.slice(5)}`);

    const jwks = (await request(t.url).get('/.well-known/jwks.json').expect(200)).body;
    expect(await verifyChain(res.body.entries, jwks)).toMatchObject({ valid: true });
    const file = join(tmpdir(), `${fileId}.json`);
    await writeFile(file, JSON.stringify(res.body));
    const run = promisify(execFile);
    const ok = await run(process.execPath, [
      'docs/verify-receipt.mjs',
      file,
      `${t.url}/.well-known/jwks.json`,
    ]);
    expect(ok.stdout).toContain('valid: 5 entries');
    res.body.entries[3].payload.total_paise = 1;
    await writeFile(file, JSON.stringify(res.body));
    await expect(
      run(process.execPath, ['docs/verify-receipt.mjs', file, `${t.url}/.well-known/jwks.json`]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('INVALID at seq 4') });
  });

  it('accepts forex event types on webhook endpoints', async () => {
    const ws = await seedWorkspace(t);
    const res = await request(t.url)
      .post('/v1/webhooks/endpoints')
      .set('Authorization', `Bearer ${ws.apiKey}`)
      .send({ url: 'http://127.0.0.1:9/hooks', event_types: ['forex.booked', 'forex.returned'] });
    expect(res.status).toBe(201);
    expect(res.body.event_types).toEqual(['forex.booked', 'forex.returned']);
  });
});
