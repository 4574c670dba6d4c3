import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import request from 'supertest';

import { MandateAmendmentsService } from '../../src/mandates/mandate-amendments.service';
import { MandatesService } from '../../src/mandates/mandates.service';
import { bearer } from '../factories/intent.factory';
import {
  createQuote,
  GatewayApp,
  gatewayConfig,
  startGatewayApp,
  waitFor,
} from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * Amendments against a mandate whose gateway registration is in flight (docs/mandates.md
 * "Amendments while the gateway registration is pending"): the service talks to the simulator
 * through a proxy that holds the registration order (POST /v1/orders with a token) until the test
 * lets it go, so the registration is pending for as long as the test needs. Concurrent amendments
 * are then all refused with 409 mandate_registration_pending and Retry-After, and nothing changes;
 * once registered, a higher cap is refused (the token's maximum) and a lower one works. The same
 * window holds around the registration a mandate's first debit makes when the one at authorisation
 * failed.
 */

interface HoldingProxy {
  url: string;
  target: string;
  /** Registration orders waiting: forward them, or answer 502 as a failing gateway would. */
  held: { go(): void; fail(): void }[];
  holding: boolean;
  release(): void;
  failHeld(): void;
  close(): Promise<void>;
}

async function startHoldingProxy(): Promise<HoldingProxy> {
  const proxy: HoldingProxy = {
    url: '',
    target: '',
    held: [],
    holding: true,
    release() {
      proxy.holding = false;
      proxy.held.splice(0).forEach((h) => h.go());
    },
    failHeld() {
      proxy.holding = false;
      proxy.held.splice(0).forEach((h) => h.fail());
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const forward = (req: IncomingMessage, body: Buffer, res: import('node:http').ServerResponse) => {
    const target = new URL(req.url ?? '/', proxy.target);
    const out = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const registration =
        req.method === 'POST' && req.url === '/v1/orders' && body.toString().includes('"token"');
      if (registration && proxy.holding) {
        proxy.held.push({
          go: () => forward(req, body, res),
          fail: () => {
            res.writeHead(502, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: { code: 'SERVER_ERROR', description: 'held' } }));
          },
        });
        return;
      }
      forward(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

describe('gateway rail: amendments while the mandate registers', () => {
  let app: GatewayApp;
  let proxy: HoldingProxy;
  let ws: SeededWorkspace;
  const N = 8;

  beforeAll(async () => {
    proxy = await startHoldingProxy();
    app = await startGatewayApp({
      overrides: { runWorkers: false, gateway: gatewayConfig(proxy.url, 20_000) },
    });
    proxy.target = app.gw.sim.url;
    ws = await seedWorkspace(app.t);
  });
  afterAll(async () => {
    proxy?.release();
    await app?.close();
    await proxy?.close();
  });

  const amend = (mandateId: string, body: Record<string, unknown>) =>
    request(app.t.url)
      .post(`/v1/pay/mandates/${mandateId}/amendments`)
      .set(bearer(ws.buyer.credential))
      .set('Idempotency-Key', randomUUID())
      .send(body);

  const mandateRow = async (mandateId: string) =>
    (
      await app.t.db.query<{ cap: string; valid_until: Date; ended_at: Date | null }[]>(
        `SELECT per_payment_cap_paise::text AS cap, valid_until,
                gateway_registration_ended_at AS ended_at
           FROM mandates WHERE id = $1`,
        [mandateId],
      )
    )[0];

  const amendments = async (mandateId: string) =>
    (
      await app.t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM mandate_amendments WHERE mandate_id = $1`,
        [mandateId],
      )
    )[0].n;

  it('refuses every concurrent change of cap or end while registration is pending; after it, never above the token', async () => {
    const validUntil = new Date(app.t.clock.now().getTime() + 60 * 86_400_000);
    const created = await request(app.t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'as_presented' },
        per_payment_cap_paise: 2_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: validUntil.toISOString(),
      });
    expect(created.status).toBe(201);
    const mandateId = created.body.id as string;
    await app.t.get(MandatesService).authorise(ws.workspaceId, mandateId, ws.personId);
    await waitFor('the registration order held at the proxy', () => proxy.held.length === 1);
    const before = await mandateRow(mandateId);
    expect(before).toMatchObject({ cap: '2000', ended_at: null });

    // N at once: higher caps, lower caps, a later end; every one refused, nothing written.
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        amend(
          mandateId,
          i % 3 === 0
            ? { per_payment_cap_paise: 3_000 + i }
            : i % 3 === 1
              ? { per_payment_cap_paise: 1_000 + i }
              : { valid_until: new Date(validUntil.getTime() + 86_400_000).toISOString() },
        ),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('mandate_registration_pending');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await mandateRow(mandateId)).toEqual(before);
    expect(await amendments(mandateId)).toBe(0);
    // The registration is still waiting; its token is not recorded yet.
    const tokens = await app.t.db.query(
      `SELECT 1 FROM gateway_mandate_tokens WHERE mandate_id = $1`,
      [mandateId],
    );
    expect(tokens).toHaveLength(0);

    // The registration goes through: the token carries the cap the mandate had.
    proxy.release();
    await waitFor('the registration recorded as ended', async () => {
      return (await mandateRow(mandateId)).ended_at !== null;
    });
    const [token] = await app.t.db.query<{ customer_id: string; token_id: string }[]>(
      `SELECT customer_id, token_id FROM gateway_mandate_tokens WHERE mandate_id = $1`,
      [mandateId],
    );
    const [atGateway] = (await app.gw.client.listTokens(token.customer_id)).filter(
      (tk) => tk.id === token.token_id,
    );
    expect(atGateway.max_amount).toBe(2_000);

    // Above the token's maximum: refused, concurrently too; a lower cap works.
    const higher = await Promise.all(
      Array.from({ length: 4 }, () => amend(mandateId, { per_payment_cap_paise: 5_000 })),
    );
    for (const res of higher) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('amendment_needs_new_registration');
    }
    const lower = await amend(mandateId, { per_payment_cap_paise: 1_500 });
    expect(lower.status).toBe(201);
    await app.t
      .get(MandateAmendmentsService)
      .decide(ws.workspaceId, mandateId, lower.body.id as string, ws.personId, 'authorise');
    const after = await mandateRow(mandateId);
    expect(Number(after.cap)).toBe(1_500);
    expect(Number(after.cap)).toBeLessThanOrEqual(atGateway.max_amount);
  });

  it('withdraws an amendment authorised after a later registration made a token for the old cap', async () => {
    // A registration that fails at authorisation (ended, no token): then the cap may be raised…
    const created = await request(app.t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        kind: 'recurring',
        recurring: { billing_cycle: 'as_presented' },
        per_payment_cap_paise: 2_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(app.t.clock.now().getTime() + 60 * 86_400_000).toISOString(),
      });
    const mandateId = created.body.id as string;
    proxy.holding = true;
    await app.t.get(MandatesService).authorise(ws.workspaceId, mandateId, ws.personId);
    await waitFor('the registration order held at the proxy', () => proxy.held.length === 1);
    // …it is refused while the order is held, then the gateway fails the registration.
    expect((await amend(mandateId, { per_payment_cap_paise: 4_000 })).status).toBe(409);
    proxy.failHeld();
    await waitFor('the failed registration recorded as ended', async () => {
      return (await mandateRow(mandateId)).ended_at !== null;
    });
    expect(
      await app.t.db.query(`SELECT 1 FROM gateway_mandate_tokens WHERE mandate_id = $1`, [
        mandateId,
      ]),
    ).toHaveLength(0);
    const asked = await amend(mandateId, { per_payment_cap_paise: 4_000 });
    expect(asked.status).toBe(201);
    // Before the person answers, the mandate gets its token (as the first debit would register it).
    await app.t.db.query(
      `INSERT INTO gateway_mandate_tokens (mandate_id, customer_id, token_id, registration_order_id, status)
       VALUES ($1, 'cust_x', 'token_x', 'order_x', 'confirmed')`,
      [mandateId],
    );
    await expect(
      app.t
        .get(MandateAmendmentsService)
        .decide(ws.workspaceId, mandateId, asked.body.id as string, ws.personId, 'authorise'),
    ).rejects.toMatchObject({ code: 'amendment_needs_new_registration' });
    expect((await mandateRow(mandateId)).cap).toBe('2000');
    const [row] = await app.t.db.query<{ status: string }[]>(
      `SELECT status FROM mandate_amendments WHERE id = $1`,
      [asked.body.id],
    );
    expect(row.status).toBe('withdrawn');
  });
  it('holds the window around the registration a first debit makes after the one at authorisation failed', async () => {
    const created = await request(app.t.url)
      .post('/v1/pay/mandates')
      .set(bearer(ws.buyer.credential))
      .send({
        rail: 'upi_otm',
        per_payment_cap_paise: 2_000,
        payee_agent_ids: [ws.seller.id],
        valid_until: new Date(app.t.clock.now().getTime() + 30 * 86_400_000).toISOString(),
      });
    expect(created.status).toBe(201);
    const mandateId = created.body.id as string;
    proxy.holding = true;
    await app.t.get(MandatesService).authorise(ws.workspaceId, mandateId, ws.personId);
    await waitFor('the registration order held at the proxy', () => proxy.held.length === 1);
    proxy.failHeld();
    await waitFor('the failed registration recorded as ended', async () => {
      return (await mandateRow(mandateId)).ended_at !== null;
    });
    const before = await mandateRow(mandateId);

    // The first debit registers the mandate; its registration order is held at the proxy.
    proxy.holding = true;
    const quoteId = await createQuote(app.t, ws, 1_500);
    const paying = request(app.t.url)
      .post(`/v1/pay/quotes/${quoteId}/pay`)
      .set(bearer(ws.buyer.credential))
      .set('Idempotency-Key', randomUUID())
      .send({ mandate_id: mandateId })
      .then((res) => res);
    await waitFor(
      'the debit’s registration order held at the proxy',
      () => proxy.held.length === 1,
    );
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        amend(mandateId, { per_payment_cap_paise: i % 2 === 0 ? 5_000 + i : 1_000 + i }),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('mandate_registration_pending');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await mandateRow(mandateId)).toEqual(before);
    expect(await amendments(mandateId)).toBe(0);

    // Released: the token carries the mandate's cap, the payment goes on, and a higher cap is
    // refused as above the token's.
    proxy.release();
    const paid = await paying;
    expect(paid.status).toBe(200);
    const [token] = await app.t.db.query<{ customer_id: string; token_id: string }[]>(
      `SELECT customer_id, token_id FROM gateway_mandate_tokens WHERE mandate_id = $1`,
      [mandateId],
    );
    const [atGateway] = (await app.gw.client.listTokens(token.customer_id)).filter(
      (tk) => tk.id === token.token_id,
    );
    expect(atGateway.max_amount).toBe(2_000);
    const higher = await amend(mandateId, { per_payment_cap_paise: 5_000 });
    expect(higher.status).toBe(409);
    expect(higher.body.error.code).toBe('amendment_needs_new_registration');
    expect((await mandateRow(mandateId)).cap).toBe('2000');
  });
});
