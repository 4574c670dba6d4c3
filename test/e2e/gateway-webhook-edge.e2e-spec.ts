import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

import fc from 'fast-check';
import request from 'supertest';

import { METRICS } from '../../src/metrics/metric-names';
import { OperatorsService } from '../../src/ops/operators.service';
import { webhookSignature } from '../../src/rails/gateway/gateway-signatures';
import { signIn } from '../factories/app-session.factory';
import { TEST_GATEWAY_KEYS } from '../support/gateway';
import { GatewayApp, startGatewayApp } from '../support/gateway-app';
import { scrape } from '../support/prometheus';
import { seedWorkspace } from '../support/seed';

/**
 * The edge of POST /v1/webhooks/gateway (docs/gateway.md "Going live on the gateway"): a correctly signed
 * event is never limited by address while unsigned or badly signed traffic is; every event id the
 * gateway may send is accepted (printable ASCII up to 128); and a signed event never gets a 5xx: one
 * that does not parse is stored `unprocessable`, answered 200, counted and listed for operators.
 */

const secret = TEST_GATEWAY_KEYS.webhookSecret;
const SYSTEM = { type: 'system' as const, id: 'test' };

function capturedEvent(n: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    entity: 'event',
    account_id: 'acc_SimAccount0001',
    event: 'payment.captured',
    contains: ['payment'],
    payload: {
      payment: {
        entity: {
          id: `pay_Edge${n}`,
          entity: 'payment',
          amount: 10_000,
          currency: 'INR',
          status: 'captured',
          order_id: `order_Edge${n}`,
          method: 'upi',
          captured: true,
        },
      },
    },
    created_at: 1_760_000_000,
    ...extra,
  });
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read by the test
  body: any;
}

/**
 * POST /v1/webhooks/gateway with exactly these bytes (supertest would JSON-encode a Buffer), the
 * event id header as given and the body's signature unless told otherwise (null: no header).
 */
function post(
  url: string,
  raw: string | Buffer,
  eventId: string | null,
  signature: string | null = webhookSignature(raw, secret),
): Promise<Answer> {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': bytes.length,
  };
  if (eventId !== null) {
    headers['X-Gateway-Event-Id'] = eventId;
  }
  if (signature !== null) {
    headers['X-Gateway-Signature'] = signature;
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/v1/webhooks/gateway`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

const statuses = (rs: Answer[]) =>
  rs.reduce<Record<number, number>>(
    (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
    {},
  );

describe('gateway webhook edge: rate limits', () => {
  let app: GatewayApp;

  beforeAll(async () => {
    // The production default: 20 at once, 10/s sustained (a 2 s window).
    app = await startGatewayApp({
      overrides: { rateLimitPublicBurst: 20, rateLimitPublicPerSecond: 10 },
      webhooks: false,
    });
  });
  afterAll(() => app?.close());

  const recorded = async (ids: string[]) =>
    (
      await app.t.db.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM gateway_events WHERE id = ANY($1)',
        [ids],
      )
    )[0].n;

  it('never limits correctly signed events by address: 60 at once from one address are all recorded once', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `evt_burst${i}_${randomUUID().slice(0, 8)}`);
    const answers = await Promise.all(
      ids.map((id, i) => post(app.t.url, capturedEvent(`Burst${i}`), id)),
    );
    expect(statuses(answers)).toEqual({ 200: 60 });
    expect(answers.map((a) => a.body.outcome as string)).toEqual(Array(60).fill('unmatched'));
    expect(await recorded(ids)).toBe(60);
    // A second round straight away (the address's window has not passed): still none refused.
    const again = await Promise.all(
      ids.map((id, i) => post(app.t.url, capturedEvent(`Burst${i}`), id)),
    );
    expect(statuses(again)).toEqual({ 200: 60 });
    expect(again.every((a) => a.body.outcome === 'duplicate')).toBe(true);
  });

  it('limits unsigned and badly signed traffic by address (401, then 429 with Retry-After) while signed events from that address still go through', async () => {
    const raw = capturedEvent('Forged');
    const forged = Array.from({ length: 40 }, (_, i) => ({
      id: `evt_forged${i}_${randomUUID().slice(0, 8)}`,
      signature: [null, '', 'ab'.repeat(32), webhookSignature(raw, 'another-secret')][i % 4],
    }));
    const answers = await Promise.all(forged.map((f) => post(app.t.url, raw, f.id, f.signature)));
    const counts = statuses(answers);
    expect(Object.keys(counts).sort()).toEqual(['401', '429']);
    expect(counts[401]).toBeGreaterThanOrEqual(1);
    expect(counts[429]).toBeGreaterThanOrEqual(1);
    for (const a of answers) {
      if (a.status === 401) {
        expect(a.body.error.code).toBe('invalid_signature');
      } else {
        expect(a.body.error.type).toBe('rate_limit_exceeded');
        expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    // The address is blocked for unsigned traffic now; the gateway's signed events are not.
    const signedIds = Array.from(
      { length: 10 },
      (_, i) => `evt_after${i}_${randomUUID().slice(0, 8)}`,
    );
    const signed = await Promise.all(
      signedIds.map((id, i) => post(app.t.url, capturedEvent(`After${i}`), id)),
    );
    expect(statuses(signed)).toEqual({ 200: 10 });
    expect(await recorded(forged.map((f) => f.id))).toBe(0);
    expect(await recorded(signedIds)).toBe(10);
  });
});

describe('gateway webhook edge: event ids and events that do not parse', () => {
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp({ webhooks: false });
  });
  afterAll(() => app?.close());

  const row = async (id: string) =>
    (
      await app.t.db.query<
        { type: string; outcome: string; reason: string | null; payload: unknown }[]
      >('SELECT type, outcome, reason, payload FROM gateway_events WHERE id = $1', [id])
    )[0];
  const count = async (sql: string, params: unknown[] = []) =>
    (await app.t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n;

  it('accepts any event id of printable ASCII up to 128 characters: hyphens, dots, colons, punctuation', async () => {
    const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
    const ids = [
      `evt-${randomUUID()}`,
      `evt.2026.${randomUUID().slice(0, 8)}`,
      `urn:gw:evt:${randomUUID().slice(0, 8)}`,
      `${punctuation}${randomUUID().slice(0, 8)}`,
      `A${randomUUID().replace(/-/g, '')}`.padEnd(128, 'x-.:'),
      `${randomUUID().slice(0, 1)}`,
      `evt with inner spaces ${randomUUID().slice(0, 8)}`,
    ];
    expect(ids[4]).toHaveLength(128);
    for (const [i, id] of ids.entries()) {
      const res = await post(app.t.url, capturedEvent(`Id${i}`), id);
      expect({ id, status: res.status, body: res.body as unknown }).toEqual({
        id,
        status: 200,
        body: { received: true, event_id: id, outcome: 'unmatched' },
      });
      expect((await row(id)).outcome).toBe('unmatched');
      expect((await post(app.t.url, capturedEvent(`Id${i}`), id)).body.outcome).toBe('duplicate');
    }
  });

  it('refuses an event id that is too long, has control or non-ASCII characters: a clear 400, nothing recorded', async () => {
    const before = await count('gateway_events');
    const bad = [
      'x'.repeat(129),
      'evt\ttab',
      // Sent as latin1 bytes: Node reads it back as the same non-ASCII characters.
      'evt_caf\u00e9',
    ];
    for (const id of bad) {
      const res = await post(app.t.url, capturedEvent('BadId'), id);
      expect({ id, status: res.status }).toEqual({ id, status: 400 });
      expect(res.body.error).toMatchObject({ code: 'invalid', param: 'X-Gateway-Event-Id' });
      expect(res.body.error.message).toContain('1-128 printable ASCII');
    }
    const missing = await post(app.t.url, capturedEvent('BadId'), null);
    expect(missing.status).toBe(400);
    // A control character HTTP itself forbids in a header (\x01): refused 400 before our code.
    const raw = capturedEvent('Ctl');
    const status = await new Promise<string>((resolve, reject) => {
      const { port } = new URL(app.t.url);
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /v1/webhooks/gateway HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
            `X-Gateway-Signature: ${webhookSignature(raw, secret)}\r\nX-Gateway-Event-Id: evt\x01ctl\r\n` +
            `Content-Length: ${Buffer.byteLength(raw)}\r\nConnection: close\r\n\r\n${raw}`,
        );
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('end', () => resolve(text.split('\r\n')[0]));
      socket.on('error', reject);
    });
    expect(status).toMatch(/^HTTP\/1\.1 400/);
    expect(await count('gateway_events')).toBe(before);
  });

  it('stores a signed order.paid whose order is {} or {"entity": null} as unprocessable, answers 200, and a repeat is a duplicate', async () => {
    const payment = JSON.parse(capturedEvent('OrderPaid')).payload.payment as unknown;
    for (const [i, order] of [{}, { entity: null }, { entity: { id: 42 } }].entries()) {
      const raw = JSON.stringify({
        entity: 'event',
        event: 'order.paid',
        contains: ['payment', 'order'],
        payload: { payment, order },
      });
      const id = `evt-order-paid-${i}-${randomUUID().slice(0, 8)}`;
      const res = await post(app.t.url, raw, id);
      expect({ status: res.status, body: res.body as unknown }).toEqual({
        status: 200,
        body: { received: true, event_id: id, outcome: 'unprocessable' },
      });
      const stored = await row(id);
      expect(stored).toMatchObject({ type: 'order.paid', outcome: 'unprocessable' });
      expect(stored.reason).toContain('payload.order');
      expect(stored.payload).toEqual(JSON.parse(raw));
      expect((await post(app.t.url, raw, id)).body.outcome).toBe('duplicate');
    }
  });

  it('never answers 5xx to a signed body that is not a readable event: not JSON, not UTF-8, not an object, NUL, huge numbers, too deep', async () => {
    const bodies: [string, string | Buffer][] = [
      ['not json', 'not json at all'],
      ['truncated', '{"event": "payment.captured", "payload": {'],
      ['not utf-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ['array', '[1, 2, 3]'],
      ['string', '"payment.captured"'],
      ['null', 'null'],
      ['nul', '{"event": "payment.captured", "payload": {"x": "a\\u0000b"}}'],
      ['lone surrogate', '{"event": "payment.captured", "payload": {"x": "\\ud800"}}'],
      ['huge number', '{"event": "payment.captured", "payload": {"x": 1e400}}'],
      ['prototype key', '{"event": "x", "payload": {"__proto__": {"a": 1}}}'],
      ['too deep', `{"event": "x", "payload": ${'['.repeat(40)}${']'.repeat(40)}}`],
      ['no payload', '{"event": "payment.captured"}'],
      ['event not a string', '{"event": 7, "payload": {}}'],
      ['amount a string', capturedEvent('Str').replace('"amount":10000', '"amount":"10000"')],
      ['negative amount', capturedEvent('Neg').replace('"amount":10000', '"amount":-1')],
      ['fractional amount', capturedEvent('Frac').replace('"amount":10000', '"amount":100.5')],
      ['unknown status', capturedEvent('St').replace('"status":"captured"', '"status":"weird"')],
      [
        'refund without status',
        '{"event": "refund.processed", "payload": {"refund": {"entity": {"id": "rfnd_1", "payment_id": "pay_1", "amount": 100}}}}',
      ],
    ];
    for (const [what, raw] of bodies) {
      const id = `evt:bad:${what.replace(/ /g, '-')}:${randomUUID().slice(0, 8)}`;
      const res = await post(app.t.url, raw, id);
      expect({ what, status: res.status, outcome: res.body.outcome as unknown }).toEqual({
        what,
        status: 200,
        outcome: 'unprocessable',
      });
      const stored = await row(id);
      expect({ what, outcome: stored.outcome }).toEqual({ what, outcome: 'unprocessable' });
      expect(stored.reason).toEqual(expect.any(String));
      // The reason names what failed; it never carries the webhook secret.
      expect(stored.reason).not.toContain(secret);
    }
  });

  it('refuses an unsigned body 401 before parsing it, whatever it holds, and records nothing', async () => {
    const before = await count('gateway_events');
    for (const raw of ['not json at all', '{"event": "order.paid", "payload": {"order": {}}}']) {
      const res = await post(app.t.url, raw, `evt_unsigned_${randomUUID().slice(0, 8)}`, null);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_signature');
      const forged = await post(
        app.t.url,
        raw,
        `evt_forged_${randomUUID().slice(0, 8)}`,
        'ab'.repeat(32),
      );
      expect(forged.status).toBe(401);
    }
    expect(await count('gateway_events')).toBe(before);
  });

  it('counts unprocessable events in svc_gateway_events_unprocessable_total and shows how many are stored', async () => {
    const s0 = await scrape(app.t);
    const counter = METRICS.gatewayEventsUnprocessable.name;
    const gauge = METRICS.gatewayEventsForReview.name;
    const before = s0.value(counter, { event_type: 'order.paid' });
    const raw = JSON.stringify({ event: 'order.paid', payload: { order: { entity: null } } });
    const id = `evt-metric-${randomUUID()}`;
    expect((await post(app.t.url, raw, id)).body.outcome).toBe('unprocessable');
    expect((await post(app.t.url, raw, id)).body.outcome).toBe('duplicate');
    expect((await post(app.t.url, 'garbage', `evt-metric-${randomUUID()}`)).body.outcome).toBe(
      'unprocessable',
    );
    const s1 = await scrape(app.t);
    expect(s1.value(counter, { event_type: 'order.paid' })).toBe(before + 1);
    expect(s1.value(counter, { event_type: 'other' })).toBeGreaterThanOrEqual(1);
    expect(s1.value(gauge, { outcome: 'unprocessable' })).toBe(
      await count(`gateway_events WHERE outcome = 'unprocessable'`),
    );
    expect(s1.value(gauge, { outcome: 'unmatched' })).toBe(
      await count(`gateway_events WHERE outcome = 'unmatched'`),
    );
  });

  it('/app/ops/gateway-events: 404 for anyone but an operator, who sees unprocessable and unmatched events with their age', async () => {
    const raw = JSON.stringify({ event: 'order.paid', payload: { order: {} } });
    const unprocessable = `evt-ops-${randomUUID()}`;
    await post(app.t.url, raw, unprocessable);
    const unmatched = `evt-ops-${randomUUID()}`;
    expect((await post(app.t.url, capturedEvent('Ops'), unmatched)).body.outcome).toBe('unmatched');

    expect((await request(app.t.url).get('/app/ops/gateway-events')).status).toBe(404);
    const ws = await seedWorkspace(app.t);
    const person = await signIn(app.t, ws.email, ws.password);
    const refused = await request(app.t.url)
      .get('/app/ops/gateway-events')
      .set('Cookie', person.cookie);
    expect(refused.status).toBe(404);
    expect(refused.text).not.toContain(unprocessable);

    const issued = await app.t
      .get(OperatorsService)
      .ensureOperator(
        { email: 'gateway@ops.test', name: 'Gateway events', workspaceName: 'Operators' },
        SYSTEM,
      );
    const operator = await signIn(app.t, issued.email, issued.password);
    const res = await request(app.t.url)
      .get('/app/ops/gateway-events')
      .set('Cookie', operator.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.text).toContain(`data-event="${unprocessable}" data-outcome="unprocessable"`);
    expect(res.text).toContain(`data-event="${unmatched}" data-outcome="unmatched"`);
    expect(res.text).toContain('payload.order.entity');
    expect(res.text).toMatch(/data-age-seconds="\d+"/);
    expect(res.text).toContain(
      `data-count="unprocessable">${await count(`gateway_events WHERE outcome = 'unprocessable'`)}<`,
    );
  });
});

describe('gateway webhook edge: signed events of random shapes', () => {
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp({ webhooks: false });
  });
  afterAll(() => app?.close());

  const HUGE = '@@huge@@';
  /** Any JSON value, with nulls, wrong types, strings of numbers, lone surrogates and NULs. */
  const anything: fc.Arbitrary<unknown> = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(null, '', '100', '-1', 0, -1, 1.5, 2 ** 53, [], {}, { entity: null }, HUGE),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.double(),
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  );
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: a }, anything);
  const amount = maybe(fc.integer({ min: 0, max: 10_000_000 }));
  const entity = fc.record(
    {
      id: maybe(fc.string({ minLength: 1, maxLength: 12 })),
      order_id: maybe(fc.constantFrom('order_Prop0001', 'order_Prop0002')),
      payment_id: maybe(fc.constant('pay_Prop0001')),
      amount,
      amount_paid: amount,
      debited: amount,
      currency: maybe(fc.constant('INR')),
      status: maybe(
        fc.constantFrom('created', 'authorized', 'captured', 'failed', 'processed', 'pending'),
      ),
      receipt: maybe(fc.constant(null)),
      error_description: anything,
      extra: anything,
    },
    { requiredKeys: [] },
  );
  const wrapped = maybe(fc.record({ entity: maybe(entity) }));
  const payload = maybe(
    fc.record(
      {
        payment: wrapped,
        order: wrapped,
        refund: wrapped,
        token: wrapped,
        payment_link: wrapped,
        settlement: wrapped,
        reserve_pay_block: wrapped,
        other: anything,
      },
      { requiredKeys: [] },
    ),
  );
  const event = fc.record(
    {
      entity: maybe(fc.constant('event')),
      account_id: anything,
      event: maybe(
        fc.constantFrom(
          'payment.authorized',
          'payment.captured',
          'payment.failed',
          'order.paid',
          'refund.created',
          'refund.processed',
          'refund.failed',
          'token.confirmed',
          'token.rejected',
          'token.cancelled',
          'payment_link.paid',
          'payment_link.cancelled',
          'settlement.processed',
          'reserve_pay.block.active',
          'reserve_pay.block.released',
          'something.new',
        ),
      ),
      contains: anything,
      payload,
      created_at: maybe(fc.integer({ min: 0 })),
    },
    { requiredKeys: [] },
  );
  /** Well-formed events for no order of ours, with random fields added where the gateway may add them. */
  const extras = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !['__proto__'].includes(k)),
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 3 }),
    ),
    { maxKeys: 3 },
  );
  const wellFormed = fc
    .tuple(
      fc.constantFrom(
        ['payment.captured', 'payment'],
        ['payment.failed', 'payment'],
        ['refund.processed', 'refund'],
        ['token.cancelled', 'token'],
        ['settlement.processed', 'settlement'],
        ['something.new', 'other'],
      ),
      fc.integer({ min: 0, max: 10_000_000 }),
      extras,
      extras,
    )
    .map(([[type, key], paise, more, envelopeMore]) => {
      const entities: Record<string, Record<string, unknown>> = {
        payment: {
          id: 'pay_Prop0009',
          order_id: 'order_Prop0009',
          amount: paise,
          currency: 'INR',
          status: type === 'payment.failed' ? 'failed' : 'captured',
        },
        refund: {
          id: 'rfnd_Prop0009',
          payment_id: 'pay_Prop0009',
          amount: paise,
          status: 'processed',
        },
        token: { id: 'token_Prop0009' },
        settlement: { id: 'setl_Prop0009', amount: paise },
        other: {},
      };
      return JSON.stringify({
        ...envelopeMore,
        event: type,
        payload: { [key]: { entity: { ...more, ...entities[key] } } },
      });
    });
  const body: fc.Arbitrary<string | Buffer> = fc.oneof(
    { weight: 6, arbitrary: event.map((e) => JSON.stringify(e).split(`"${HUGE}"`).join('1e400')) },
    { weight: 2, arbitrary: wellFormed },
    { weight: 1, arbitrary: anything.map((v) => JSON.stringify(v) ?? 'undefined') },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b)),
    },
  );
  const goodId = fc.oneof(
    fc.stringMatching(/^[\x21-\x7e]{1,128}$/),
    fc.stringMatching(/^[a-z]{1,8} [a-z]{1,8}$/),
  );
  const badId = fc.oneof(
    fc.stringMatching(/^[\x21-\x7e]{129,140}$/),
    fc.stringMatching(/^[a-z]{1,8}\t[a-z]{1,8}$/),
  );
  const eventId = fc.oneof(
    { weight: 9, arbitrary: goodId.map((id) => ({ id, valid: true })) },
    { weight: 1, arbitrary: badId.map((id) => ({ id, valid: false })) },
  );

  it('answers every one 2xx (400 only for a bad event id), never 5xx, and applies none of them', async () => {
    const count = async (sql: string) =>
      (await app.t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${sql}`))[0].n;
    const before = {
      intents: await count('payment_intents'),
      refunds: await count('refunds'),
      tokens: await count('gateway_mandate_tokens'),
    };
    const prefix = `prop-${randomUUID().slice(0, 8)}-`;
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(body, eventId, async (raw, { id, valid }) => {
        const eventIdHeader = valid ? `${prefix}${id}`.slice(0, 128) : id;
        const res = await post(app.t.url, raw, eventIdHeader);
        if (!valid) {
          expect(res.status).toBe(400);
          return;
        }
        expect(res.status).toBe(200);
        const outcome = res.body.outcome as string;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        expect(['unprocessable', 'unmatched', 'ignored', 'no_change', 'duplicate']).toContain(
          outcome,
        );
      }),
      { numRuns: 150, seed: 2026_04_17 },
    );
    // The shapes reach every path: refused by the schema, and read far enough to find no order.
    expect(outcomes.get('unprocessable')).toBeGreaterThan(0);
    expect((outcomes.get('unmatched') ?? 0) + (outcomes.get('ignored') ?? 0)).toBeGreaterThan(0);
    expect({
      intents: await count('payment_intents'),
      refunds: await count('refunds'),
      tokens: await count('gateway_mandate_tokens'),
    }).toEqual(before);
    expect(
      await count(
        `gateway_events WHERE id LIKE '${prefix}%' AND outcome NOT IN ('unprocessable', 'unmatched', 'ignored', 'no_change')`,
      ),
    ).toBe(0);
  });
});
