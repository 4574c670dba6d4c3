import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { AccountsService } from '../../src/accounts/accounts.service';
import { randomToken } from '../../src/common/ids';
import { SellerService } from '../../src/seller/seller.service';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/** Seller listings (PUT /v1/pay/agents/{id}/listing) and the seller directory (GET /v1/pay/sellers). */
describe('Listings', () => {
  let t: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
  });
  afterAll(() => t.close());

  /** A category no other test (or test file) uses, so directory queries see only this test's sellers. */
  const uniqueCategory = () =>
    `t${randomToken(10)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`;

  const offer = (sku: string, over: Record<string, unknown> = {}) => ({
    sku,
    name: `Offer ${sku}`,
    unit_paise: 45_000,
    category: 'food.tea',
    ...over,
  });

  const put = (credential: string, agentId: string, body: unknown, idempotencyKey?: string) => {
    const req = request(t.url)
      .put(`/v1/pay/agents/${agentId}/listing`)
      .set('Authorization', `Bearer ${credential}`);
    if (idempotencyKey) {
      req.set('Idempotency-Key', idempotencyKey);
    }
    return req.send(body as object);
  };

  async function offerRows(agentId: string) {
    return t.db.query<
      {
        id: string;
        sku: string;
        name: string;
        unit_paise: string;
        category: string;
        active: boolean;
      }[]
    >(
      'SELECT id, sku, name, unit_paise::text, category, active FROM offers WHERE seller_agent_id = $1 ORDER BY sku',
      [agentId],
    );
  }

  /** A new seller agent in the seed workspace, with its credential. */
  async function newSeller(
    name = `Seller ${randomToken(6)}`,
    role: 'seller' | 'buyer' | 'both' = 'seller',
  ) {
    const agent = await t
      .get(AccountsService)
      .createAgent(ws.workspaceId, { name, role }, { type: 'person', id: ws.personId });
    return { id: agent.id, credential: agent.credential!, name };
  }

  describe('PUT /v1/pay/agents/{agent_id}/listing', () => {
    it('publishes the listing and answers with the whole listing', async () => {
      const seller = await newSeller('Chai Co');
      const res = await put(seller.credential, seller.id, {
        listed: true,
        offers: [
          offer('tea-assam-1kg', { name: 'Assam tea 1 kg' }),
          offer('biscuits', { unit_paise: 2_500, category: 'food.snacks' }),
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        object: 'listing',
        agent_id: seller.id,
        seller_name: 'Chai Co',
        listed: true,
        offers: [
          { sku: 'biscuits', name: 'Offer biscuits', unit_paise: 2_500, category: 'food.snacks' },
          {
            sku: 'tea-assam-1kg',
            name: 'Assam tea 1 kg',
            unit_paise: 45_000,
            category: 'food.tea',
          },
        ],
        updated_at: expect.any(String),
      });
      const [listing] = await t.db.query<{ listed: boolean }[]>(
        'SELECT listed FROM seller_listings WHERE agent_id = $1',
        [seller.id],
      );
      expect(listing.listed).toBe(true);
      const rows = await offerRows(seller.id);
      expect(rows.map((r) => [r.sku, r.unit_paise, r.active])).toEqual([
        ['biscuits', '2500', true],
        ['tea-assam-1kg', '45000', true],
      ]);
    });

    it('replaces the offer list: omitted offers go inactive (rows kept), present ones are updated or reactivated', async () => {
      const seller = await newSeller();
      await put(seller.credential, seller.id, {
        listed: true,
        offers: [offer('a'), offer('b')],
      }).expect(200);
      const [a] = await offerRows(seller.id);

      const second = await put(seller.credential, seller.id, {
        listed: true,
        offers: [offer('b', { unit_paise: 50_000, name: 'B, dearer' }), offer('c')],
      });
      expect(second.status).toBe(200);
      expect(second.body.offers.map((o: { sku: string }) => o.sku)).toEqual(['b', 'c']);
      let rows = await offerRows(seller.id);
      expect(rows.map((r) => [r.sku, r.active, r.unit_paise, r.name])).toEqual([
        ['a', false, '45000', 'Offer a'],
        ['b', true, '50000', 'B, dearer'],
        ['c', true, '45000', 'Offer c'],
      ]);
      expect(await t.get(SellerService).findActiveOffer(seller.id, 'a')).toBeNull();
      expect((await t.get(SellerService).findActiveOffer(seller.id, 'b'))?.unitPaise).toBe(50_000);

      await put(seller.credential, seller.id, {
        listed: true,
        offers: [offer('a', { unit_paise: 100 })],
      }).expect(200);
      rows = await offerRows(seller.id);
      expect(rows.map((r) => [r.sku, r.active])).toEqual([
        ['a', true],
        ['b', false],
        ['c', false],
      ]);
      // Reactivated in place: the same row (history keeps one row per SKU).
      expect(rows[0].id).toBe(a.id);
      expect(rows[0].unit_paise).toBe('100');

      const empty = await put(seller.credential, seller.id, { listed: false, offers: [] });
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ listed: false, offers: [] });
      expect((await offerRows(seller.id)).every((r) => !r.active)).toBe(true);
    });

    it('replays an idempotent PUT and refuses the same key with another body', async () => {
      const seller = await newSeller();
      const key = randomUUID();
      const first = await put(
        seller.credential,
        seller.id,
        { listed: true, offers: [offer('x')] },
        key,
      );
      expect(first.status).toBe(200);
      const replay = await put(
        seller.credential,
        seller.id,
        { listed: true, offers: [offer('x')] },
        key,
      );
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      const conflict = await put(seller.credential, seller.id, { listed: false, offers: [] }, key);
      expect(conflict.status).toBe(422);
      expect(conflict.body.error.code).toBe('idempotency_conflict');
    });

    const table: [string, string, unknown][] = [
      ['listed missing', '$.listed', { offers: [] }],
      ['listed not a boolean', '$.listed', { listed: 'yes', offers: [] }],
      ['offers missing', '$.offers', { listed: true }],
      ['offers not an array', '$.offers', { listed: true, offers: {} }],
      ['sku with a space', '$.offers[0].sku', { listed: true, offers: [offer('bad sku')] }],
      [
        'sku with a slash',
        '$.offers[1].sku',
        { listed: true, offers: [offer('ok'), offer('a/b')] },
      ],
      [
        'sku of 65 characters',
        '$.offers[0].sku',
        { listed: true, offers: [offer('a'.repeat(65))] },
      ],
      ['sku empty', '$.offers[0].sku', { listed: true, offers: [offer('')] }],
      [
        'duplicate sku',
        '$.offers[2].sku',
        { listed: true, offers: [offer('dup'), offer('other'), offer('dup')] },
      ],
      ['name empty', '$.offers[0].name', { listed: true, offers: [offer('a', { name: '' })] }],
      [
        'name of 201 characters',
        '$.offers[0].name',
        { listed: true, offers: [offer('a', { name: 'n'.repeat(201) })] },
      ],
      [
        'unit_paise zero',
        '$.offers[0].unit_paise',
        { listed: true, offers: [offer('a', { unit_paise: 0 })] },
      ],
      [
        'unit_paise negative',
        '$.offers[0].unit_paise',
        { listed: true, offers: [offer('a', { unit_paise: -5 })] },
      ],
      [
        'unit_paise fractional',
        '$.offers[0].unit_paise',
        { listed: true, offers: [offer('a', { unit_paise: 10.5 })] },
      ],
      [
        'unit_paise as a string',
        '$.offers[0].unit_paise',
        { listed: true, offers: [offer('a', { unit_paise: '100' })] },
      ],
      [
        'unit_paise above 10^12',
        '$.offers[0].unit_paise',
        { listed: true, offers: [offer('a', { unit_paise: 1_000_000_000_001 })] },
      ],
      [
        'category uppercase',
        '$.offers[0].category',
        { listed: true, offers: [offer('a', { category: 'Food.Tea' })] },
      ],
      [
        'category with an empty segment',
        '$.offers[0].category',
        { listed: true, offers: [offer('a', { category: 'food..tea' })] },
      ],
      [
        'category ending in a dot',
        '$.offers[0].category',
        { listed: true, offers: [offer('a', { category: 'food.' })] },
      ],
      [
        'category missing',
        '$.offers[0].category',
        { listed: true, offers: [{ sku: 'a', name: 'A', unit_paise: 1 }] },
      ],
      [
        'unknown offer field',
        '$.offers[0].colour',
        { listed: true, offers: [offer('a', { colour: 'red' })] },
      ],
      ['unknown top-level field', '$.featured', { listed: true, offers: [], featured: true }],
      [
        'more than 500 offers',
        '$.offers',
        { listed: true, offers: Array.from({ length: 501 }, (_, i) => offer(`s${i}`)) },
      ],
    ];

    it.each(table)('400 for %s, naming %s', async (_name, param, body) => {
      const res = await put(ws.seller.credential, ws.seller.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request',
        code: expect.stringMatching(/^(invalid|missing)$/),
        param,
      });
    });

    it('accepts the limits: 500 offers, a 64-character SKU, a 200-character name, 10^12 paise', async () => {
      const seller = await newSeller();
      const offers = Array.from({ length: 500 }, (_, i) => offer(`sku.${i}_x-${i}`));
      offers[0] = offer('s'.repeat(64), {
        name: 'n'.repeat(200),
        unit_paise: 1_000_000_000_000,
        category: 'a_1.b_2.c',
      });
      const res = await put(seller.credential, seller.id, { listed: true, offers });
      expect(res.status).toBe(200);
      expect(res.body.offers).toHaveLength(500);
    });

    it("refuses another agent's listing: 403 within the workspace, 404 outside it", async () => {
      const seller = await newSeller();
      const sameWorkspace = await put(ws.seller.credential, seller.id, {
        listed: true,
        offers: [],
      });
      expect(sameWorkspace.status).toBe(403);
      expect(sameWorkspace.body.error.code).toBe('forbidden');
      const other = await seedWorkspace(t);
      const otherWorkspace = await put(ws.seller.credential, other.seller.id, {
        listed: true,
        offers: [],
      });
      expect(otherWorkspace.status).toBe(404);
      const unknown = await put(ws.seller.credential, 'agt_doesnotexist', {
        listed: true,
        offers: [],
      });
      expect(unknown.status).toBe(404);
      expect(await offerRows(seller.id)).toEqual([]);
    });

    it('refuses a buyer agent (403 not_a_seller) and takes only agent credentials', async () => {
      const buyer = await put(ws.buyer.credential, ws.buyer.id, {
        listed: true,
        offers: [offer('a')],
      });
      expect(buyer.status).toBe(403);
      expect(buyer.body.error.code).toBe('not_a_seller');
      const both = await newSeller('Both ways', 'both');
      expect(
        (await put(both.credential, both.id, { listed: true, offers: [offer('a')] })).status,
      ).toBe(200);
      const apiKey = await put(ws.apiKey, ws.seller.id, { listed: true, offers: [] });
      expect(apiKey.status).toBe(403);
      expect(apiKey.body.error.code).toBe('wrong_credential');
      const none = await request(t.url)
        .put(`/v1/pay/agents/${ws.seller.id}/listing`)
        .send({ listed: true, offers: [] });
      expect(none.status).toBe(401);
    });
  });

  describe('GET /v1/pay/sellers', () => {
    const sellers = (credential: string, query: Record<string, string | number> = {}) =>
      request(t.url)
        .get('/v1/pay/sellers')
        .query(query)
        .set('Authorization', `Bearer ${credential}`);

    it('lists listed sellers with their active offers; a category matches its sub-categories only', async () => {
      const cat = uniqueCategory();
      const teaShop = await newSeller(`Tea shop ${cat}`);
      const snackShop = await newSeller(`Snack shop ${cat}`);
      const hidden = await newSeller(`Hidden ${cat}`);
      await put(teaShop.credential, teaShop.id, {
        listed: true,
        offers: [
          offer('green', { category: `${cat}.tea.green` }),
          offer('black', { category: `${cat}.tea` }),
          offer('mug', { category: `${cat}x.mug` }),
        ],
      }).expect(200);
      await put(snackShop.credential, snackShop.id, {
        listed: true,
        offers: [offer('chips', { category: `${cat}.snacks` })],
      }).expect(200);
      await put(hidden.credential, hidden.id, {
        listed: false,
        offers: [offer('secret', { category: `${cat}.tea` })],
      }).expect(200);

      const all = await sellers(ws.buyer.credential, { category: cat });
      expect(all.status).toBe(200);
      expect(all.body).toEqual({
        object: 'list',
        data: [
          {
            agent_id: snackShop.id,
            name: snackShop.name,
            offers: [
              { sku: 'chips', name: 'Offer chips', unit_paise: 45_000, category: `${cat}.snacks` },
            ],
          },
          {
            agent_id: teaShop.id,
            name: teaShop.name,
            offers: [
              { sku: 'black', name: 'Offer black', unit_paise: 45_000, category: `${cat}.tea` },
              {
                sku: 'green',
                name: 'Offer green',
                unit_paise: 45_000,
                category: `${cat}.tea.green`,
              },
            ],
          },
        ],
        has_more: false,
        next_cursor: null,
      });

      const tea = await sellers(ws.apiKey, { category: `${cat}.tea` });
      expect(tea.status).toBe(200);
      expect(tea.body.data.map((s: { agent_id: string }) => s.agent_id)).toEqual([teaShop.id]);
      const green = await sellers(ws.apiKey, { category: `${cat}.tea.green` });
      expect(green.body.data[0].offers.map((o: { sku: string }) => o.sku)).toEqual(['green']);
      // `${cat}x.mug` shares a prefix but not a path segment.
      const mugs = await sellers(ws.apiKey, { category: `${cat}x` });
      expect(mugs.body.data.map((s: { agent_id: string }) => s.agent_id)).toEqual([teaShop.id]);
      expect(mugs.body.data[0].offers.map((o: { sku: string }) => o.sku)).toEqual(['mug']);

      // A withdrawn offer disappears from the directory.
      await put(snackShop.credential, snackShop.id, { listed: true, offers: [] }).expect(200);
      const after = await sellers(ws.apiKey, { category: cat });
      expect(after.body.data.map((s: { agent_id: string }) => s.agent_id)).toEqual([teaShop.id]);
    });

    it('q searches seller names, offer names and SKUs, case-insensitively', async () => {
      const tag = randomToken(8).toLowerCase();
      const shop = await newSeller(`Darjeeling House ${tag}`);
      const other = await newSeller(`Other ${tag}`);
      await put(shop.credential, shop.id, {
        listed: true,
        offers: [
          offer('first-flush', { name: 'First Flush Darjeeling' }),
          offer('masala', { name: 'Masala chai' }),
        ],
      }).expect(200);
      await put(other.credential, other.id, {
        listed: true,
        offers: [offer(`kettle-${tag}`, { name: 'Kettle', category: 'home.kitchen' })],
      }).expect(200);

      const byOffer = await sellers(ws.apiKey, { q: `MASALA` });
      const shopHit = byOffer.body.data.find((s: { agent_id: string }) => s.agent_id === shop.id);
      expect(shopHit.offers.map((o: { sku: string }) => o.sku)).toEqual(['masala']);

      const bySeller = await sellers(ws.apiKey, { q: `darjeeling house ${tag.toUpperCase()}` });
      expect(bySeller.body.data).toEqual([expect.objectContaining({ agent_id: shop.id })]);
      expect(bySeller.body.data[0].offers).toHaveLength(2);

      const bySku = await sellers(ws.apiKey, { q: `KETTLE-${tag}` });
      expect(bySku.body.data.map((s: { agent_id: string }) => s.agent_id)).toEqual([other.id]);

      const wildcard = await sellers(ws.apiKey, { q: `%${tag}_` });
      expect(wildcard.body.data).toEqual([]);
    });

    it('pages with limit and next_cursor, newest seller first', async () => {
      const cat = uniqueCategory();
      const made: string[] = [];
      for (let i = 0; i < 3; i++) {
        const s = await newSeller(`Pager ${i} ${cat}`);
        await put(s.credential, s.id, {
          listed: true,
          offers: [offer('item', { category: cat })],
        }).expect(200);
        made.push(s.id);
      }
      const first = await sellers(ws.apiKey, { category: cat, limit: 2 });
      expect(first.status).toBe(200);
      expect(first.body.data.map((s: { agent_id: string }) => s.agent_id)).toEqual([
        made[2],
        made[1],
      ]);
      expect(first.body.has_more).toBe(true);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await sellers(ws.apiKey, {
        category: cat,
        limit: 2,
        starting_after: first.body.next_cursor,
      });
      expect(second.body.data.map((s: { agent_id: string }) => s.agent_id)).toEqual([made[0]]);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    });

    it('validates the query and needs a credential', async () => {
      const bad = await sellers(ws.apiKey, { category: 'Food' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('$.category');
      const badLimit = await sellers(ws.apiKey, { limit: 0 });
      expect(badLimit.status).toBe(400);
      const badCursor = await sellers(ws.apiKey, { starting_after: 'nope' });
      expect(badCursor.status).toBe(400);
      expect((await request(t.url).get('/v1/pay/sellers')).status).toBe(401);
      const protocolKey = await sellers(ws.merchantKey);
      expect(protocolKey.status).toBe(403);
    });

    it('searchSellers is usable without HTTP (MCP find_seller)', async () => {
      const cat = uniqueCategory();
      const s = await newSeller(`Direct ${cat}`);
      await put(s.credential, s.id, {
        listed: true,
        offers: [offer('d', { category: cat })],
      }).expect(200);
      const page = await t.get(SellerService).searchSellers({ category: cat });
      expect(page).toEqual({
        object: 'list',
        data: [
          {
            agent_id: s.id,
            name: s.name,
            offers: [{ sku: 'd', name: 'Offer d', unit_paise: 45_000, category: cat }],
          },
        ],
        has_more: false,
        next_cursor: null,
      });
    });
  });
});
