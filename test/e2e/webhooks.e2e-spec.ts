import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http, { IncomingHttpHeaders } from 'node:http';
import { AddressInfo, createServer, Socket } from 'node:net';

import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';

import { AccountsService } from '../../src/accounts/accounts.service';
import { SHOWN_ONCE } from '../../src/common/idempotency/redact-secrets';
import { newId } from '../../src/common/ids';
import { QUEUES } from '../../src/common/queues/queues';
import { Tx } from '../../src/database/tx';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { WebhookDeliveriesService } from '../../src/webhooks/webhook-deliveries.service';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';
import { WebhookEndpointsService } from '../../src/webhooks/webhook-endpoints.service';
import { WebhookSecrets } from '../../src/webhooks/webhook-secrets';
import { WebhookSender } from '../../src/webhooks/webhook-sender';
import { payFreeFormQuote } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp } from '../support/app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import { shortSql, SqlCounter } from '../support/sql-counter';

/**
 * Outbound webhooks end to end: a real receiver on 127.0.0.1, the real dispatcher (Sweeper on a
 * 50 ms tick), real Bull workers, a 3-step retry schedule of 50/100/150 ms, and signatures
 * checked with the standardwebhooks library a consumer would use.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  got: Received[];
  /** Status to answer the n-th request (0-based) with. */
  answer: (n: number) => number | Promise<number>;
  close(): Promise<void>;
}

async function startReceiver(
  answer: (n: number) => number | Promise<number> = () => 200,
  port = 0,
): Promise<Receiver> {
  const receiver: Receiver = { url: '', got: [], answer, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = receiver.got.length;
      receiver.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      void Promise.resolve(receiver.answer(n)).then((status) =>
        res
          .writeHead(status, { 'content-type': 'text/plain' })
          .end(`answer ${status} to request ${n}`),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FAST = { webhookRetryScheduleMs: [50, 100, 150], webhookDispatchIntervalMs: 50 };
const auth = (ws: SeededWorkspace) => ({ Authorization: `Bearer ${ws.apiKey}` });

/** What the pipeline does on settlement: an outbox row in the state change's transaction. */
async function emit(
  t: TestApp,
  ws: SeededWorkspace,
  type = 'intent.settled',
  agentId = ws.seller.id,
) {
  const subjectId = newId('pi');
  return t.get(Tx).run(() =>
    t.get(OutboxRepository).add({
      workspaceId: ws.workspaceId,
      agentId,
      type,
      subjectId,
      data: {
        intent_id: subjectId,
        amount_paise: 12_300,
        currency: 'INR',
        seller_agent_id: agentId,
      },
    }),
  );
}

async function register(
  t: TestApp,
  ws: SeededWorkspace,
  body: Record<string, unknown>,
  idem?: string,
) {
  const res = await request(t.url)
    .post('/v1/webhooks/endpoints')
    .set({ ...auth(ws), ...(idem ? { 'Idempotency-Key': idem } : {}) })
    .send(body);
  return res;
}

/** True once the dispatcher has claimed the event: it exists and no longer waits in outbox_pending. */
async function dispatched(t: TestApp, eventId: string): Promise<boolean> {
  const [row] = await t.db.query<{ exists: boolean; waiting: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM outbox_events WHERE id = $1) AS exists,
            EXISTS (SELECT 1 FROM outbox_pending WHERE event_id = $1) AS waiting`,
    [eventId],
  );
  expect(row.exists).toBe(true);
  return !row.waiting;
}

async function deliveriesOf(t: TestApp, eventId: string) {
  return t.db.query<{ id: string; endpoint_id: string; status: string; attempt_count: number }[]>(
    'SELECT id, endpoint_id, status, attempt_count FROM webhook_deliveries WHERE event_id = $1',
    [eventId],
  );
}

/** The delivery the dispatcher made for this event, once it has committed. */
async function dispatchedDelivery(t: TestApp, eventId: string) {
  const [delivery] = await waitFor('the dispatch', async () => {
    const rows = await deliveriesOf(t, eventId);
    return rows.length > 0 ? rows : null;
  });
  return delivery;
}

/**
 * Runs the overdue-delivery sweep (every 5 s, for deliveries overdue by 10 s) with the service
 * clock moved a minute on instead of waiting, until the event's delivery is delivered.
 */
async function resumeUntilDelivered(t: TestApp, eventId: string, what: string): Promise<void> {
  t.clock.advance(60_000);
  try {
    await t.get(WebhookDispatcher).resumeStalled();
    await waitFor(what, async () => (await deliveriesOf(t, eventId))[0].status === 'delivered');
  } finally {
    t.clock.reset();
  }
}

describe('webhooks', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(FAST);
  });
  afterAll(() => t.close());

  describe('endpoints', () => {
    it('shows the secret once, stores it sealed and never returns it again', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver();
      const idem = `idem-${randomUUID()}`;
      const body = { url: receiver.url, event_types: ['intent.settled'], description: 'orders' };
      const res = await register(t, ws, body, idem);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'webhook_endpoint',
        url: receiver.url,
        event_types: ['intent.settled'],
        agent_id: null,
        description: 'orders',
        status: 'enabled',
        disabled_reason: null,
      });
      const secret: string = res.body.secret;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(
        24,
      );

      // Never again: GET, list, and a replay of the same create.
      const one = await request(t.url).get(`/v1/webhooks/endpoints/${res.body.id}`).set(auth(ws));
      expect(one.status).toBe(200);
      expect(one.body.secret).toBeUndefined();
      const list = await request(t.url).get('/v1/webhooks/endpoints').set(auth(ws));
      expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.id]);
      expect(JSON.stringify(list.body)).not.toContain(secret);
      const replay = await register(t, ws, body, idem);
      expect(replay.status).toBe(201);
      expect(replay.body.secret).toBe(SHOWN_ONCE);

      // The database holds no plaintext anywhere, only a ciphertext that opens to the secret.
      const secretBody = secret.slice('whsec_'.length);
      const [row] = await t.db.query<{ j: string; secret_ciphertext: string }[]>(
        'SELECT row_to_json(e)::text AS j, secret_ciphertext FROM webhook_endpoints e WHERE id = $1',
        [res.body.id],
      );
      expect(row.j).not.toContain(secretBody);
      expect(row.secret_ciphertext).toMatch(/^v1\./);
      expect(t.get(WebhookSecrets).open(row.secret_ciphertext, res.body.id)).toBe(secret);
      // Bound to its row: the same ciphertext does not open as another endpoint's.
      expect(() => t.get(WebhookSecrets).open(row.secret_ciphertext, 'whe_other')).toThrow();
      const [{ n }] = await t.db.query<{ n: number }[]>(
        `SELECT (SELECT count(*) FROM idempotency_records WHERE response_raw LIKE $1)
              + (SELECT count(*) FROM audit_events WHERE data::text LIKE $1) AS n`,
        [`%${secretBody.slice(0, 16)}%`],
      );
      expect(Number(n)).toBe(0);
      await receiver.close();
    });

    it('validates url, event types and agent', async () => {
      const ws = await seedWorkspace(t);
      const cases: [Record<string, unknown>, string, string][] = [
        [
          { url: 'ftp://example.com/x', event_types: ['intent.settled'] },
          'webhook_url_refused',
          '$.url',
        ],
        [{ url: 'not a url', event_types: ['intent.settled'] }, 'webhook_url_refused', '$.url'],
        [
          { url: 'http://user:pw@127.0.0.1:9/x', event_types: ['*'] },
          'webhook_url_refused',
          '$.url',
        ],
        [
          { url: 'http://169.254.169.254/latest/meta-data', event_types: ['*'] },
          'webhook_url_refused',
          '$.url',
        ],
        [{ url: 'http://127.0.0.1:9/x', event_types: [] }, 'missing', '$.event_types'],
        [
          { url: 'http://127.0.0.1:9/x', event_types: ['intent.created'] },
          'invalid',
          '$.event_types',
        ],
        [
          { url: 'http://127.0.0.1:9/x', event_types: ['*', 'intent.settled'] },
          'invalid',
          '$.event_types',
        ],
        [
          { url: 'http://127.0.0.1:9/x', event_types: ['*'], agent_id: ws.buyer.id },
          'invalid',
          '$.agent_id',
        ],
      ];
      for (const [body, code, param] of cases) {
        const res = await register(t, ws, body);
        expect({
          body,
          status: res.status,
          code: res.body.error?.code,
          param: res.body.error?.param,
        }).toEqual({ body, status: 400, code, param });
      }
      const [{ n }] = await t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1',
        [ws.workspaceId],
      );
      expect(n).toBe(0);
    });
  });

  describe('delivery', () => {
    it('delivers a settled event signed per Standard Webhooks, only to matching endpoints', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver();
      const other = await startReceiver();
      const res = await register(t, ws, {
        url: receiver.url,
        event_types: ['*'],
        agent_id: ws.seller.id,
      });
      // Subscribed to another type: gets nothing for intent.settled.
      const refundsOnly = await register(t, ws, {
        url: other.url,
        event_types: ['refund.succeeded'],
      });
      expect(refundsOnly.status).toBe(201);

      const started = Date.now();
      const event = await emit(t, ws);
      await waitFor('the delivery', async () => receiver.got.length === 1);
      expect(Date.now() - started).toBeLessThan(3000);

      const got = receiver.got[0];
      const verified = new Webhook(res.body.secret).verify(
        got.body,
        got.headers as Record<string, string>,
      );
      expect(verified).toEqual(event.payload);
      expect(JSON.parse(got.body)).toEqual({
        id: event.id,
        type: 'intent.settled',
        created_at: event.createdAt.toISOString(),
        data: event.payload.data,
      });
      expect(got.headers['webhook-id']).toBe(event.id);
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(
        10,
      );
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toMatch(/webhooks/);
      // A tampered body does not verify.
      expect(() =>
        new Webhook(res.body.secret).verify(
          got.body.replace('12300', '99999'),
          got.headers as Record<string, string>,
        ),
      ).toThrow();

      const delivery = await waitFor('delivered status', async () => {
        const [d] = await deliveriesOf(t, event.id);
        return d?.status === 'delivered' ? d : null;
      });
      expect(delivery.endpoint_id).toBe(res.body.id);
      expect(await deliveriesOf(t, event.id)).toHaveLength(1);
      expect(other.got).toHaveLength(0);
      expect(await dispatched(t, event.id)).toBe(true);

      // The endpoint is scoped to ws.seller: another seller agent's events do not reach it.
      const seller2 = await t
        .get(AccountsService)
        .createAgent(
          ws.workspaceId,
          { name: 'Other shop', role: 'seller' },
          { type: 'person', id: ws.personId },
        );
      const foreign = await emit(t, ws, 'intent.settled', seller2.id);
      await waitFor(
        'dispatch of the other seller event',
        async () => await dispatched(t, foreign.id),
      );
      expect(await deliveriesOf(t, foreign.id)).toHaveLength(0);

      const list = await request(t.url)
        .get(`/v1/webhooks/endpoints/${res.body.id}/deliveries`)
        .set(auth(ws));
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([
        expect.objectContaining({
          id: delivery.id,
          event_id: event.id,
          event_type: 'intent.settled',
          status: 'delivered',
          attempts: 1,
          last_status_code: 200,
          next_attempt_at: null,
        }),
      ]);
      const events = await request(t.url)
        .get('/v1/events')
        .query({ agent_id: ws.seller.id })
        .set(auth(ws));
      expect(events.status).toBe(200);
      expect(events.body.data).toEqual([
        { ...event.payload, object: 'event', agent_id: ws.seller.id },
      ]);
      const all = await request(t.url).get('/v1/events').query({ limit: 1 }).set(auth(ws));
      expect(all.body).toMatchObject({ has_more: true, data: [{ id: foreign.id }] });
      const next = await request(t.url)
        .get('/v1/events')
        .query({ limit: 1, starting_after: all.body.next_cursor })
        .set(auth(ws));
      expect(next.body).toMatchObject({ has_more: false, data: [{ id: event.id }] });
      await receiver.close();
      await other.close();
    });

    it('retries a failing receiver with the same webhook-id until it succeeds', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver((n) => (n < 2 ? 500 : 200));
      const res = await register(t, ws, { url: receiver.url, event_types: ['intent.settled'] });
      const event = await emit(t, ws);
      const [delivery] = await waitFor('delivered after retries', async () => {
        const rows = await deliveriesOf(t, event.id);
        return rows[0]?.status === 'delivered' ? rows : null;
      });
      expect(receiver.got).toHaveLength(3);
      expect(new Set(receiver.got.map((g) => g.headers['webhook-id']))).toEqual(
        new Set([event.id]),
      );
      for (const g of receiver.got) {
        expect(
          new Webhook(res.body.secret).verify(g.body, g.headers as Record<string, string>),
        ).toEqual(event.payload);
      }
      const attempts = await request(t.url)
        .get(`/v1/webhooks/deliveries/${delivery.id}/attempts`)
        .set(auth(ws));
      expect(attempts.status).toBe(200);
      expect(
        attempts.body.data.map(
          (a: { attempt: number; status_code: number; trigger: string; succeeded: boolean }) => [
            a.attempt,
            a.status_code,
            a.trigger,
            a.succeeded,
          ],
        ),
      ).toEqual([
        [1, 500, 'scheduled', false],
        [2, 500, 'scheduled', false],
        [3, 200, 'scheduled', true],
      ]);
      expect(attempts.body.data[0]).toMatchObject({
        response_body: 'answer 500 to request 0',
        error: 'receiver answered HTTP 500',
      });
      expect(attempts.body.data[0].duration_ms).toEqual(expect.any(Number));
      await receiver.close();
    });

    it('fails a delivery after the schedule, disables the endpoint, and redelivers on request', async () => {
      const ws = await seedWorkspace(t);
      // A dead receiver: nothing listens on this port any more.
      const dead = await startReceiver();
      await dead.close();
      const res = await register(t, ws, { url: dead.url, event_types: ['intent.settled'] });
      const event = await emit(t, ws);
      const [delivery] = await waitFor('failed delivery', async () => {
        const rows = await deliveriesOf(t, event.id);
        return rows[0]?.status === 'failed' ? rows : null;
      });
      expect(delivery.attempt_count).toBe(4); // first try + 3 retries
      const endpoint = await request(t.url)
        .get(`/v1/webhooks/endpoints/${res.body.id}`)
        .set(auth(ws));
      expect(endpoint.body).toMatchObject({
        status: 'disabled',
        disabled_reason: 'retries_exhausted',
        disabled_at: expect.any(String),
      });
      const listed = await request(t.url)
        .get(`/v1/webhooks/endpoints/${res.body.id}/deliveries`)
        .set(auth(ws));
      expect(listed.body.data[0]).toMatchObject({
        status: 'failed',
        attempts: 4,
        last_status_code: null,
        next_attempt_at: null,
        last_error: expect.stringContaining('ECONNREFUSED'),
      });

      // Events while disabled are not delivered to it.
      const later = await emit(t, ws);
      await waitFor('dispatch of the later event', async () => await dispatched(t, later.id));
      expect(await deliveriesOf(t, later.id)).toHaveLength(0);

      // Redelivery: one new attempt now, even though the delivery failed; it re-enables nothing.
      const redo = await request(t.url)
        .post(`/v1/webhooks/deliveries/${delivery.id}/redeliver`)
        .set(auth(ws));
      expect(redo.status).toBe(202);
      expect(redo.body).toMatchObject({ id: delivery.id, status: 'failed' });
      const attempts = await waitFor('the manual attempt', async () => {
        const a = await request(t.url)
          .get(`/v1/webhooks/deliveries/${delivery.id}/attempts`)
          .set(auth(ws));
        return a.body.data.length === 5 ? a.body.data : null;
      });
      expect(attempts[4]).toMatchObject({
        attempt: 5,
        trigger: 'manual',
        succeeded: false,
        status_code: null,
      });
      const after = await request(t.url).get(`/v1/webhooks/endpoints/${res.body.id}`).set(auth(ws));
      expect(after.body.status).toBe('disabled');
      const [d] = await deliveriesOf(t, event.id);
      expect(d.status).toBe('failed');

      // Once the receiver is back, a redelivery succeeds and the delivery is delivered.
      const back = await startReceiver(() => 200, Number(new URL(dead.url).port));
      const again = await request(t.url)
        .post(`/v1/webhooks/deliveries/${delivery.id}/redeliver`)
        .set(auth(ws));
      expect(again.status).toBe(202);
      await waitFor(
        'delivered by redelivery',
        async () => (await deliveriesOf(t, event.id))[0].status === 'delivered',
      );
      expect(back.got.map((g) => g.headers['webhook-id'])).toEqual([event.id]);
      const enabled = await request(t.url)
        .post(`/v1/webhooks/endpoints/${res.body.id}/enable`)
        .set(auth(ws));
      expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });
      await back.close();
    });

    it('signs with both secrets while a rotation overlaps, and with the new one only after', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver();
      const res = await register(t, ws, { url: receiver.url, event_types: ['*'] });
      const rotated = await request(t.url)
        .post(`/v1/webhooks/endpoints/${res.body.id}/rotate-secret`)
        .set(auth(ws))
        .send({});
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(res.body.secret);
      expect(rotated.body.previous_secret_expires_at).toEqual(expect.any(String));
      await emit(t, ws, 'refund.succeeded');
      await waitFor('first delivery', async () => receiver.got.length === 1);
      const [first] = receiver.got;
      expect((first.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
      expect(() =>
        new Webhook(rotated.body.secret).verify(
          first.body,
          first.headers as Record<string, string>,
        ),
      ).not.toThrow();
      expect(() =>
        new Webhook(res.body.secret).verify(first.body, first.headers as Record<string, string>),
      ).not.toThrow();

      const hard = await request(t.url)
        .post(`/v1/webhooks/endpoints/${res.body.id}/rotate-secret`)
        .set(auth(ws))
        .send({ previous_secret_expires_in_seconds: 0 });
      expect(hard.body.previous_secret_expires_at).toBeNull();
      await emit(t, ws, 'refund.succeeded');
      await waitFor('second delivery', async () => receiver.got.length === 2);
      const second = receiver.got[1];
      expect((second.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
      expect(() =>
        new Webhook(hard.body.secret).verify(second.body, second.headers as Record<string, string>),
      ).not.toThrow();
      expect(() =>
        new Webhook(rotated.body.secret).verify(
          second.body,
          second.headers as Record<string, string>,
        ),
      ).toThrow();
      await receiver.close();
    });

    it('pauses deliveries of a disabled endpoint', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver();
      const res = await register(t, ws, { url: receiver.url, event_types: ['*'] });
      const off = await request(t.url)
        .post(`/v1/webhooks/endpoints/${res.body.id}/disable`)
        .set(auth(ws));
      expect(off.body).toMatchObject({ status: 'disabled', disabled_reason: 'disabled_by_user' });
      const event = await emit(t, ws);
      await waitFor('dispatch', async () => await dispatched(t, event.id));
      expect(await deliveriesOf(t, event.id)).toHaveLength(0);
      expect(receiver.got).toHaveLength(0);
      await receiver.close();
    });

    it('reuses a receiver’s connection for the next delivery (keep-alive), and opens a fresh one once the receiver closed it', async () => {
      const connections: Socket[] = [];
      const server = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(200).end('ok'));
      });
      server.on('connection', (socket: Socket) => connections.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const send = (eventId: string) =>
        t.get(WebhookSender).send({
          url: `http://127.0.0.1:${port}/hooks`,
          eventId,
          body: '{}',
          secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
        });
      try {
        for (const id of ['evt_k1', 'evt_k2', 'evt_k3']) {
          expect(await send(id)).toMatchObject({ ok: true, statusCode: 200 });
        }
        expect(connections).toHaveLength(1);
        // The receiver drops the idle connection (a reset): the next delivery goes on a new one.
        connections[0].resetAndDestroy();
        await sleep(20);
        expect(await send('evt_k4')).toMatchObject({ ok: true, statusCode: 200, error: null });
        expect(connections).toHaveLength(2);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('resolves host names through the address guard and keeps 1 KB of the answer', async () => {
      const server = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(200).end('x'.repeat(5000)));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const result = await t.get(WebhookSender).send({
        url: `http://localhost:${port}/hooks`,
        eventId: 'evt_x',
        body: '{}',
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      });
      expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(result.responseBody).toHaveLength(1024);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('holds a pending delivery while its endpoint is disabled and resumes it once enabled', async () => {
      const ws = await seedWorkspace(t);
      let endpointId = '';
      // The seller disables the endpoint while the first attempt is in flight (and failing).
      const receiver = await startReceiver(async (n) => {
        if (n === 0) {
          await request(t.url).post(`/v1/webhooks/endpoints/${endpointId}/disable`).set(auth(ws));
          return 503;
        }
        return 200;
      });
      endpointId = (await register(t, ws, { url: receiver.url, event_types: ['*'] })).body.id;
      const event = await emit(t, ws);
      await waitFor(
        'first attempt',
        async () => (await deliveriesOf(t, event.id))[0]?.attempt_count === 1,
      );
      await sleep(300); // the retry (due after ~50 ms) finds the endpoint disabled and waits
      expect(receiver.got).toHaveLength(1);
      expect((await deliveriesOf(t, event.id))[0]).toMatchObject({
        status: 'pending',
        attempt_count: 1,
      });

      await request(t.url)
        .post(`/v1/webhooks/endpoints/${endpointId}/enable`)
        .set(auth(ws))
        .expect(200);
      // The overdue-delivery sweep picks it up.
      await resumeUntilDelivered(t, event.id, 'delivery after enable');
      expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([event.id, event.id]);
      await receiver.close();
    });

    it('sends a first attempt whose job was lost after the dispatch committed, once, from the stalled-delivery sweep', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver();
      await register(t, ws, { url: receiver.url, event_types: ['intent.settled'] });
      const queue = t.get<Queue>(getQueueToken(QUEUES.webhooks) as never);
      await queue.pause(true); // this instance's workers take no job for now
      let event: { id: string };
      try {
        event = await emit(t, ws);
        // The dispatcher enqueues the first attempt only once the delivery has committed.
        const delivery = await dispatchedDelivery(t, event.id);
        const job = await waitFor('its job', () => queue.getJob(`whd-${delivery.id}-s1`));
        await job.remove(); // lost, as with a Redis restart between the commit and the worker
      } finally {
        await queue.resume(true);
      }
      await sleep(300);
      expect(receiver.got).toHaveLength(0);
      expect((await deliveriesOf(t, event.id))[0]).toMatchObject({
        status: 'pending',
        attempt_count: 0,
      });

      // Overdue by more than the grace: the sweep enqueues it again.
      await resumeUntilDelivered(t, event.id, 'the delivery');
      await sleep(300); // room for a duplicate to show up, if there were one
      expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([event.id]);
      await receiver.close();
    });

    it('makes an attempt in five statements: one read, then the lock and one write in a transaction', async () => {
      const ws = await seedWorkspace(t);
      const receiver = await startReceiver();
      await register(t, ws, { url: receiver.url, event_types: ['intent.settled'] });
      const queue = t.get<Queue>(getQueueToken(QUEUES.webhooks) as never);
      await queue.pause(true); // the attempt is made here, not by this instance's workers
      const sql = SqlCounter.forCalls(t.db);
      try {
        const event = await emit(t, ws);
        const delivery = await dispatchedDelivery(t, event.id);
        const { result, statements } = await sql.measureCall(() =>
          t.get(WebhookDeliveriesService).attempt({
            deliveryId: delivery.id,
            eventId: event.id,
            trigger: 'scheduled',
            seq: 1,
          }),
        );
        expect(result).toBe('delivered');
        expect(statements.map(shortSql)).toEqual([
          expect.stringMatching(/^SELECT row_to_json\(d\) AS delivery, \(SELECT row_to_json\(ep\)/),
          'BEGIN',
          expect.stringMatching(
            /^SELECT row_to_json\(d\) AS delivery FROM webhook_deliveries d .* FOR UPDATE$/,
          ),
          expect.stringMatching(
            /^WITH w1 AS \(INSERT INTO webhook_attempts .* w2 AS \(UPDATE webhook_deliveries/,
          ),
          'COMMIT',
        ]);
        expect((await deliveriesOf(t, event.id))[0]).toMatchObject({
          status: 'delivered',
          attempt_count: 1,
        });
        expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([event.id]);
        // The job the dispatcher enqueued finds the attempt made and does nothing.
        await queue.resume(true);
        await sleep(300);
        expect(receiver.got).toHaveLength(1);
      } finally {
        sql.uninstall();
        await queue.resume(true);
      }
      await receiver.close();
    });

    it('disables an endpoint whose receiver answers 410 Gone after exactly one attempt', async () => {
      const ws = await seedWorkspace(t);
      let gone = true;
      const receiver = await startReceiver(() => (gone ? 410 : 200));
      const res = await register(t, ws, { url: receiver.url, event_types: ['intent.settled'] });
      const event = await emit(t, ws);
      const [delivery] = await waitFor('the delivery to stop', async () => {
        const rows = await deliveriesOf(t, event.id);
        return rows[0]?.status === 'failed' ? rows : null;
      });
      expect(delivery).toMatchObject({ endpoint_id: res.body.id, attempt_count: 1 });
      const endpoint = await request(t.url)
        .get(`/v1/webhooks/endpoints/${res.body.id}`)
        .set(auth(ws));
      expect(endpoint.body).toMatchObject({
        status: 'disabled',
        disabled_reason: 'gone',
        disabled_at: expect.any(String),
      });
      const list = await request(t.url).get('/v1/webhooks/endpoints').set(auth(ws));
      expect(list.body.data).toEqual([
        expect.objectContaining({ id: res.body.id, status: 'disabled', disabled_reason: 'gone' }),
      ]);
      const audit = await t.db.query<{ actor_type: string; data: Record<string, unknown> }[]>(
        `SELECT actor_type, data FROM audit_events
          WHERE subject_id = $1 AND action = 'webhook_endpoint.disabled'`,
        [res.body.id],
      );
      expect(audit).toEqual([
        {
          actor_type: 'system',
          data: { reason: 'gone', delivery_id: delivery.id, event_id: event.id },
        },
      ]);

      // Well past the whole retry schedule (50/100/150 ms here, ~24 h by default), and past the
      // overdue-delivery sweep's grace: still that one attempt.
      await sleep(500);
      t.clock.advance(25 * 3_600_000);
      try {
        await t.get(WebhookDispatcher).resumeStalled();
        await sleep(300);
      } finally {
        t.clock.reset();
      }
      expect(receiver.got).toHaveLength(1);
      const attempts = await request(t.url)
        .get(`/v1/webhooks/deliveries/${delivery.id}/attempts`)
        .set(auth(ws));
      expect(attempts.body.data).toEqual([
        expect.objectContaining({
          attempt: 1,
          trigger: 'scheduled',
          succeeded: false,
          status_code: 410,
          response_body: 'answer 410 to request 0',
        }),
      ]);
      const listed = await request(t.url)
        .get(`/v1/webhooks/endpoints/${res.body.id}/deliveries`)
        .set(auth(ws));
      expect(listed.body.data).toEqual([
        expect.objectContaining({
          id: delivery.id,
          status: 'failed',
          attempts: 1,
          last_status_code: 410,
          next_attempt_at: null,
          failed_at: expect.any(String),
        }),
      ]);

      // While disabled, new events make no deliveries for it.
      const whileGone = await emit(t, ws);
      await waitFor('dispatch', async () => await dispatched(t, whileGone.id));
      expect(await deliveriesOf(t, whileGone.id)).toHaveLength(0);

      // Enabling works as for any other reason, and the next event goes out.
      gone = false;
      const enabled = await request(t.url)
        .post(`/v1/webhooks/endpoints/${res.body.id}/enable`)
        .set(auth(ws));
      expect(enabled.body).toMatchObject({
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
      });
      const next = await emit(t, ws);
      await waitFor(
        'delivery after enable',
        async () => (await deliveriesOf(t, next.id))[0]?.status === 'delivered',
      );
      expect(receiver.got.map((g) => g.headers['webhook-id'])).toEqual([event.id, next.id]);
      expect((await deliveriesOf(t, event.id))[0].status).toBe('failed');
      await receiver.close();
    });
  });
});

/**
 * An endpoint gets what happens from its registration on. The Sweeper here ticks once an hour
 * and no NOTIFY wakes it (PG_LISTEN off), so the outbox is dispatched only when a test says so: a
 * settled payment's event is committed and still undispatched when the endpoint is registered.
 */
describe('webhooks for a newly registered endpoint', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ ...FAST, webhookDispatchIntervalMs: 3_600_000, pgListen: false });
  });
  afterAll(() => t.close());

  async function settledEvent(ws: SeededWorkspace, mandateId: string): Promise<string> {
    const paid = await payFreeFormQuote(t, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 25_000,
    });
    expect(paid.intent.status).toBe('settled');
    const [row] = await t.db.query<{ id: string }[]>(
      `SELECT id FROM outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`,
      [paid.intent.id],
    );
    return row.id;
  }

  it('receives nothing from before it existed, the next payment, and redeliveries of it', async () => {
    const ws = await seedWorkspace(t);
    const mandateId = await createMandate(t, { workspaceId: ws.workspaceId, agentId: ws.buyer.id });
    const early = await startReceiver();
    const late = await startReceiver();
    const earlyEp = await register(t, ws, { url: early.url, event_types: ['intent.settled'] });

    const before = await settledEvent(ws, mandateId);
    expect(await dispatched(t, before)).toBe(false);
    const lateEp = await register(t, ws, { url: late.url, event_types: ['*'] });
    expect(lateEp.status).toBe(201);
    await t.get(WebhookDispatcher).dispatchPending();
    await waitFor('the earlier endpoint gets it', async () => early.got.length === 1);
    expect(await deliveriesOf(t, before)).toEqual([
      expect.objectContaining({ endpoint_id: earlyEp.body.id }),
    ]);

    const after = await settledEvent(ws, mandateId);
    await t.get(WebhookDispatcher).dispatchPending();
    const [delivery] = await waitFor('the new endpoint gets the next one', async () => {
      const rows = (await deliveriesOf(t, after)).filter((d) => d.endpoint_id === lateEp.body.id);
      return rows[0]?.status === 'delivered' ? rows : null;
    });
    await waitFor('the earlier endpoint gets it too', async () => early.got.length === 2);
    expect(late.got.map((g) => g.headers['webhook-id'])).toEqual([after]);
    expect(early.got.map((g) => g.headers['webhook-id'])).toEqual([before, after]);

    // Explicit redelivery of what it did receive still works.
    const redo = await request(t.url)
      .post(`/v1/webhooks/deliveries/${delivery.id}/redeliver`)
      .set(auth(ws));
    expect(redo.status).toBe(202);
    await waitFor('the redelivery', async () => late.got.length === 2);
    expect(late.got.map((g) => g.headers['webhook-id'])).toEqual([after, after]);
    await early.close();
    await late.close();
  });

  it('does not miss an event created while the endpoint registration is still committing', async () => {
    const ws = await seedWorkspace(t);
    const receiver = await startReceiver();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let registered!: (id: string) => void;
    const endpointId = new Promise<string>((r) => (registered = r));
    // The registration's transaction stays open (as a slow request would) until released.
    const registration = t.get(Tx).run(async () => {
      const ep = await t
        .get(WebhookEndpointsService)
        .createEndpoint(
          ws.workspaceId,
          { url: receiver.url, eventTypes: ['*'] },
          { type: 'person', id: ws.personId },
        );
      registered(ep.id);
      await held;
      return ep;
    });
    const id = await endpointId;
    await sleep(5); // the event happens after the endpoint's created_at…
    const event = await emit(t, ws); // …and commits before the endpoint does
    let dispatched = false;
    const dispatch = t
      .get(WebhookDispatcher)
      .dispatchPending()
      .then(() => (dispatched = true));
    await sleep(300);
    expect(dispatched).toBe(false); // the fan-out waits for the registration to commit
    release();
    await registration;
    await dispatch;
    await waitFor('delivery to the new endpoint', async () => receiver.got.length === 1);
    expect(receiver.got[0].headers['webhook-id']).toBe(event.id);
    expect(await deliveriesOf(t, event.id)).toEqual([expect.objectContaining({ endpoint_id: id })]);
    await receiver.close();
  });
});

describe('webhooks in live mode', () => {
  let live: TestApp;
  let ws: SeededWorkspace;

  beforeAll(async () => {
    live = await startApp({ mode: 'live', runWorkers: false });
    ws = await seedWorkspace(live);
  });
  afterAll(() => live.close());

  it.each([
    ['http://example.com/hooks', /https/],
    ['https://127.0.0.1/hooks', /not allowed/],
    ['https://localhost/hooks', /not allowed/],
    ['https://10.1.2.3/hooks', /not allowed/],
    ['https://100.64.0.1/hooks', /not allowed/],
    ['https://169.254.169.254/latest', /not allowed/],
    ['https://[::1]/hooks', /not allowed/],
    ['https://[::ffff:127.0.0.1]/hooks', /not allowed/],
  ])('refuses %s', async (url, message) => {
    const res = await register(live, ws, { url, event_types: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'webhook_url_refused',
      param: '$.url',
      message: expect.stringMatching(message),
    });
  });

  it('checks the address again at delivery time', async () => {
    const sender = live.get(WebhookSender);
    for (const url of [
      'https://127.0.0.1:9/x',
      'https://localhost:9/x',
      'http://93.184.215.14/x',
    ]) {
      const result = await sender.send({
        url,
        eventId: 'evt_x',
        body: '{}',
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      });
      expect({ url, ok: result.ok, statusCode: result.statusCode }).toEqual({
        url,
        ok: false,
        statusCode: null,
      });
      expect(result.error).toMatch(/address refused|https/);
    }
  });
});

describe('webhooks across a Redis outage', () => {
  let port: number;
  let redis: ChildProcess | undefined;
  let app: TestApp;

  async function freePort(): Promise<number> {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const p = (srv.address() as AddressInfo).port;
    await new Promise<void>((resolve) => srv.close(() => resolve()));
    return p;
  }

  async function startRedis(): Promise<void> {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    redis = proc;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start')), 5000);
      proc.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
  }

  async function stopRedis(): Promise<void> {
    const proc = redis;
    redis = undefined;
    if (proc && proc.exitCode === null) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    }
  }

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    app = await startApp({ ...FAST, redisUrl: `redis://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    if (!redis) {
      await startRedis(); // Bull closes cleanly only with Redis there
    }
    await app.close();
    await stopRedis();
  });

  it('keeps settling while Redis is down and delivers each event exactly once after', async () => {
    const ws = await seedWorkspace(app);
    const receiver = await startReceiver();
    await register(app, ws, { url: receiver.url, event_types: ['*'] });
    const byId = () =>
      receiver.got.reduce<Record<string, number>>(
        (acc, g) => ({
          ...acc,
          [String(g.headers['webhook-id'])]: (acc[String(g.headers['webhook-id'])] ?? 0) + 1,
        }),
        {},
      );

    const before = await emit(app, ws);
    await waitFor('delivery before the outage', async () => receiver.got.length === 1);

    await stopRedis();
    // A real payment settles over HTTP while Redis is down: the request path never waits on Redis.
    const mandateId = await createMandate(app, {
      workspaceId: ws.workspaceId,
      agentId: ws.buyer.id,
    });
    const t0 = Date.now();
    const paid = await payFreeFormQuote(app, {
      seller: ws.seller,
      buyer: ws.buyer,
      mandateId,
      amountPaise: 45_000,
    });
    expect(paid.intent.status).toBe('settled');
    expect(Date.now() - t0).toBeLessThan(3000);
    const [during] = await app.db.query<{ id: string }[]>(
      `SELECT id FROM outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`,
      [paid.intent.id],
    );
    expect(during).toBeDefined();
    const page = await request(app.url).get('/v1/events').set(auth(ws));
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: { id: string }) => e.id)).toContain(during.id);

    await sleep(1000); // twenty dispatcher ticks without Redis
    expect(await dispatched(app, during.id)).toBe(false);
    expect(await deliveriesOf(app, during.id)).toHaveLength(0);
    expect(receiver.got).toHaveLength(1);

    await startRedis();
    await waitFor('delivery after the outage', async () => receiver.got.length >= 2, 15000);
    await sleep(500); // room for a duplicate to show up, if there were one
    expect(byId()).toEqual({ [before.id]: 1, [during.id]: 1 });
    const [delivery] = await deliveriesOf(app, during.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 1 });
    expect(await dispatched(app, during.id)).toBe(true);
    await receiver.close();
  });
});
