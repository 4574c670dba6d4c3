import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { JSONWebKeySet } from 'jose';
import request from 'supertest';

import { ApprovalsService } from '../../src/approvals/approvals.service';
import { ChainService } from '../../src/chains/chain.service';
import type { ChainEntryJson } from '../../src/chains/chain-entry';
import { verifyChain } from '../../src/chains/verify-chain';
import { randomToken } from '../../src/common/ids';
import { Tx } from '../../src/database/tx';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { mappedTable, personalColumns, personalTables } from '../../src/personal-data/data-map';
import { AppSession, csrfFieldOf, signIn } from '../factories/app-session.factory';
import { bearer, payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { createOffer } from '../factories/offer.factory';
import { insertToken } from '../factories/payment-fixtures';
import { startApp, TestApp } from '../support/app';
import { withoutIdentityNumber } from '../support/no-identity-number';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Erasure leaves nothing of the person in the whole database (issue 39 item 2;
 * docs/personal-data.md "The personal-data map"). One person is seeded through the API into every
 * place the map names: a contact corrected after use (old and new name, email and phone), paid,
 * unpaid and token-only ACP sessions with the phone written `+91 98xxx xxxxx`, `0…` and with a
 * hyphen, agents named after them (copied into a quote's seller name and an approval summary),
 * stored idempotency answers, an outbox event and a webhook receiver's answer echoing it. After
 * erasure every row of every table is read as text and searched for each identifier in every
 * normalised form: only columns the map keeps under a legal hold may still hold one (each with its
 * reason), and every receipt still verifies offline.
 */

type Person = Record<'name' | 'email' | 'phone', string>;

const rand = () =>
  randomToken(8)
    .replace(/[^A-Za-z]/g, 'q')
    .toLowerCase();
const digits8 = () => String(Math.floor(Math.random() * 1e8)).padStart(8, '0');

function makePerson(label: string): Person {
  return {
    name: withoutIdentityNumber(() => `${label} Qx${rand()}`),
    email: withoutIdentityNumber(() => `${label.toLowerCase()}-${rand()}@example.test`),
    phone: `97${digits8()}`,
  };
}

/** The ways people write a 10-digit mobile number. */
const spaced = (p: string) => `+91 ${p.slice(0, 5)} ${p.slice(5)}`;
const zeroed = (p: string) => `0${p}`;
const hyphened = (p: string) => `${p.slice(0, 5)}-${p.slice(5)}`;

/** A regex finding the identifier in any normalised form within dumped text. */
function finders(p: Person): { what: string; re: RegExp }[] {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const phone = p.phone.split('').join('[\\s()-]*');
  return [
    { what: `email ${p.email}`, re: new RegExp(esc(p.email), 'i') },
    { what: `phone ${p.phone}`, re: new RegExp(`(?<![0-9])${phone}(?![0-9])`) },
    { what: `name ${p.name}`, re: new RegExp(p.name.split(' ').map(esc).join('\\s+'), 'i') },
  ];
}

interface Hit {
  table: string;
  column: string;
  what: string;
}

describe('erasure against a whole-database dump', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  let person: AppSession;
  const before = makePerson('Noor');
  const after = makePerson('Zoya');
  const server = { url: '', close: async () => undefined as void };
  let chainIds: string[];
  let chains: Map<string, ChainEntryJson[]>;

  const page = (s: AppSession, path: string) => request(t.url).get(path).set('Cookie', s.cookie);
  async function post(s: AppSession, path: string, fields: Record<string, string> = {}) {
    const csrf = csrfFieldOf((await page(s, '/app').expect(200)).text);
    return request(t.url)
      .post(path)
      .set('Cookie', s.cookie)
      .type('form')
      .send({ _csrf: csrf, ...fields });
  }

  /** Every row of every table, as text per column. */
  async function dump(): Promise<Hit[]> {
    const tables = await t.db.query<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const hits: Hit[] = [];
    const finds = [...finders(before), ...finders(after)];
    for (const { table_name: table } of tables) {
      const rows = await t.db.query<{ r: Record<string, unknown> }[]>(
        `SELECT to_jsonb(x) AS r FROM "${table}" x`,
      );
      for (const { r } of rows) {
        for (const [column, v] of Object.entries(r)) {
          const text = typeof v === 'string' ? v : JSON.stringify(v);
          for (const f of finds) {
            if (text && f.re.test(text)) {
              hits.push({ table, column, what: f.what });
            }
          }
        }
      }
    }
    return hits;
  }

  const places = (hits: Hit[]) => [...new Set(hits.map((h) => `${h.table}.${h.column}`))].sort();

  async function acpSession(body: Record<string, unknown>) {
    const offer = await createOffer(t, ws.seller.id);
    const res = await request(t.url)
      .post('/acp/checkout_sessions')
      .set(acpHeaders(ws.merchantKey, `idem-${randomUUID()}`))
      .send({
        line_items: [{ id: offer.sku, quantity: 1 }],
        currency: 'inr',
        capabilities: {},
        ...body,
      });
    expect([res.status, res.status === 201 ? null : res.body]).toEqual([201, null]);
    return res.body as { id: string };
  }

  beforeAll(async () => {
    t = await startApp({
      webhookRetryScheduleMs: [50, 100, 150],
      webhookDispatchIntervalMs: 50,
      approvalThresholdPaise: 50_000,
    });
    ws = await seedWorkspace(t);
    person = await signIn(t, ws.email, ws.password);

    // A receiver that answers with what it got (its answer is stored with the attempt).
    const srv = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.writeHead(200).end(Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    server.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hooks`;
    server.close = () => new Promise<void>((resolve) => srv.close(() => resolve()));

    // 1. The person's first details, used, then corrected.
    expect((await post(person, '/app/your-data/profile', before)).status).toBe(303);
    const [first, last] = before.name.split(' ');
    await acpSession({
      buyer: {
        first_name: first,
        last_name: last,
        email: before.email,
        phone_number: spaced(before.phone),
      },
    });
    const oldBuyer = await request(t.url)
      .post('/v1/pay/agents')
      .set({ ...bearer(ws.apiKey), 'Idempotency-Key': `idem-${randomUUID()}` })
      .send({ name: `${before.name} Assistant`, role: 'buyer' })
      .expect(201);
    expect((await post(person, '/app/your-data/profile', after)).status).toBe(303);

    // 2. The corrected details: a paid ACP purchase (contact and delivery), an unpaid session,
    // and a session a buyer agent holds a token for but never paid.
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const paid = await acpSession({
      buyer: { first_name: after.name, email: after.email, phone_number: spaced(after.phone) },
      fulfillment_details: {
        name: after.name,
        phone_number: zeroed(after.phone),
        address: {
          name: after.name,
          line_one: '7 Dump Road',
          city: 'Pune',
          state: 'MH',
          country: 'IN',
          postal_code: '411001',
        },
      },
    });
    const token = await insertToken(t, ws, { sessionId: paid.id, mandateId });
    const completed = await request(t.url)
      .post(`/acp/checkout_sessions/${paid.id}/complete`)
      .set(acpHeaders(ws.merchantKey, `idem-${randomUUID()}`))
      .send({
        payment_data: {
          handler_id: 'svc_upi_mandate',
          instrument: { type: 'svc_mandate', credential: { type: 'svc_delegated_token', token } },
        },
      });
    expect(completed.body.status).toBe('completed');
    await acpSession({
      buyer: { email: after.email.toUpperCase(), phone_number: hyphened(after.phone) },
    });
    const tokenOnly = await acpSession({
      buyer: {
        first_name: after.name,
        email: `family-${rand()}@example.test`,
        phone_number: zeroed(after.phone),
      },
    });
    await insertToken(t, ws, { sessionId: tokenOnly.id, mandateId });

    // 3. A seller agent named after the person: its quote copies the name, the payment's approval
    // summary copies both agents' names (the buyer still carries the old name).
    const seller = (
      await request(t.url)
        .post('/v1/pay/agents')
        .set({ ...bearer(ws.apiKey), 'Idempotency-Key': `idem-${randomUUID()}` })
        .send({ name: `${after.name} Crafts`, role: 'seller' })
        .expect(201)
    ).body as { id: string; credential: string };
    const buyer = oldBuyer.body as { id: string; credential: string };
    const quoteMandate = await createMandate(t, { workspaceId: ws.workspaceId, agentId: buyer.id });
    const quoted = await payFreeFormQuote(t, {
      seller,
      buyer,
      mandateId: quoteMandate,
      amountPaise: 60_000,
      name: 'Hand-made shawl',
    });
    expect(quoted.intent.status).toBe('requires_approval');
    await t
      .get(ApprovalsService)
      .decide(ws.workspaceId, quoted.intent.approval_id!, ws.personId, 'approved');

    // 4. A webhook endpoint with a label naming the person, and an event whose payload carries the
    // buyer contact (what an order event does), delivered to the receiver that echoes it.
    const endpoint = await request(t.url)
      .post('/v1/webhooks/endpoints')
      .set({ ...bearer(ws.apiKey), 'Idempotency-Key': `idem-${randomUUID()}` })
      .send({
        url: server.url,
        event_types: ['intent.settled'],
        description: `Alerts for ${after.name}`,
      })
      .expect(201);
    expect(endpoint.body.id).toEqual(expect.any(String));
    const event = await t.get(Tx).run(() =>
      t.get(OutboxRepository).add({
        workspaceId: ws.workspaceId,
        agentId: ws.seller.id,
        type: 'intent.settled',
        subjectId: completed.body.order?.id ?? paid.id,
        data: {
          buyer: { name: after.name, email: after.email, phone_number: spaced(after.phone) },
        },
      }),
    );
    const deadline = Date.now() + 15_000;
    for (;;) {
      const [row] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.event_id = $1 AND a.response_body IS NOT NULL`,
        [event.id],
      );
      if (row.n > 0 || Date.now() > deadline) {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }

    chainIds = (
      await t.db.query<{ id: string }[]>(
        `SELECT receipt_id AS id FROM payment_intents
          WHERE (buyer_workspace_id = $1 OR seller_workspace_id = $1) AND receipt_id IS NOT NULL`,
        [ws.workspaceId],
      )
    ).map((r) => r.id);
    chains = new Map();
    for (const id of chainIds) {
      chains.set(id, await t.get(ChainService).entries(id));
    }
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it('stored the person in every place the test means to check before erasure', async () => {
    const all = await dump();
    const seeded = places(all);
    // The values the person corrected away were used first: their copies are there too.
    const old = (what: string) => places(all.filter((h) => h.what === what));
    expect(old(`email ${before.email}`)).toEqual(
      expect.arrayContaining(['checkout_sessions.buyer', 'idempotency_records.response_raw']),
    );
    expect(old(`phone ${before.phone}`)).toEqual(
      expect.arrayContaining(['checkout_sessions.buyer', 'idempotency_records.response_raw']),
    );
    expect(old(`name ${before.name}`)).toEqual(
      expect.arrayContaining(['agents.name', 'approvals.summary']),
    );
    expect(old(`phone ${after.phone}`)).toEqual(
      expect.arrayContaining(['checkout_sessions.buyer', 'persons.phone']),
    );
    expect(seeded).toEqual(
      expect.arrayContaining([
        'agents.name',
        'approvals.summary',
        'checkout_sessions.buyer',
        'checkout_sessions.fulfillment_details',
        'idempotency_records.response_raw',
        'outbox_events.payload',
        'payment_intents.description',
        'persons.email',
        'persons.name',
        'persons.phone',
        'quotes.seller_name',
        'webhook_attempts.response_body',
        'webhook_endpoints.description',
      ]),
    );
  });

  it('lists every personal column of the map in the download, with the records it names', async () => {
    const res = await page(person, '/app/your-data/download').expect(200);
    const x = JSON.parse(res.text) as Record<string, unknown> & {
      data_map: {
        table: string;
        column: string;
        category: string;
        erasure: string;
        rows: number | null;
      }[];
    };
    const listed = x.data_map.map((e) => `${e.table}.${e.column}`);
    const mapped = personalTables().flatMap((tb) =>
      personalColumns(tb).map((c) => `${tb.table}.${c.column}`),
    );
    expect(listed).toEqual(mapped);
    for (const tb of personalTables()) {
      if (!tb.download.startsWith('not ')) {
        const section = tb.download.split(/[ .[(]/)[0];
        expect([tb.table, section, section in x]).toEqual([tb.table, section, true]);
      }
    }
    const held = (table: string, column: string) =>
      x.data_map.find((e) => e.table === table && e.column === column)?.rows;
    expect(held('checkout_sessions', 'buyer')).toBe(4);
    expect(held('approvals', 'summary')).toBe(1);
    expect(x.corrected_values).toEqual({ email: 2, name: 2, phone: 1 });
    expect(JSON.stringify(x.corrected_values)).not.toContain(before.email);
  });

  describe('after erasure', () => {
    let hits: Hit[];

    beforeAll(async () => {
      const erased = await post(person, '/app/your-data/erase', { understood: 'yes' });
      expect(erased.status).toBe(200);
      hits = await dump();
    }, 60_000);

    it('leaves an identifier only where the map keeps it under a legal hold, with its reason', () => {
      const unexplained = hits.filter((h) => {
        const c = mappedTable(h.table)?.columns.find((x) => x.column === h.column);
        return !(c?.personal && c.erasure.action === 'keep');
      });
      expect(unexplained.map((h) => `${h.table}.${h.column}: ${h.what}`)).toEqual([]);
      const kept = hits.map((h) => {
        const c = mappedTable(h.table)!.columns.find((x) => x.column === h.column)!;
        return c.personal && c.erasure.action === 'keep'
          ? `${h.table}.${h.column}: ${c.erasure.hold} (${c.erasure.why})`
          : '';
      });
      expect(kept.every((k) => k.length > 0)).toBe(true);
    });

    it('keeps the purchases, payments and quotes as records', async () => {
      const [row] = await t.db.query<{ sessions: number; intents: number; quotes: number }[]>(
        `SELECT (SELECT count(*)::int FROM checkout_sessions WHERE workspace_id = $1) AS sessions,
                (SELECT count(*)::int FROM payment_intents WHERE buyer_workspace_id = $1) AS intents,
                (SELECT count(*)::int FROM quotes WHERE seller_workspace_id = $1) AS quotes`,
        [ws.workspaceId],
      );
      expect(row).toEqual({ sessions: 4, intents: 2, quotes: 1 });
      const [old] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM personal_data_old_identifiers WHERE person_id = $1',
        [ws.personId],
      );
      expect(old.n).toBe(0);
    });

    it('leaves every receipt verifying offline, unchanged', async () => {
      expect(chainIds.length).toBe(2);
      const jwks = (await request(t.url).get('/.well-known/jwks.json').expect(200))
        .body as JSONWebKeySet;
      for (const id of chainIds) {
        const now = await t.get(ChainService).entries(id);
        expect(now).toEqual(chains.get(id));
        expect(await verifyChain(now, jwks)).toEqual({
          valid: true,
          length: now.length,
          first_bad_seq: null,
          reason: null,
        });
      }
    });
  });
});
