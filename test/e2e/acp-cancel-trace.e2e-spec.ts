import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { TRACE_LIMITS } from '../../src/checkout/checkout-input';
import { MAX_BODY_DEPTH } from '../../src/common/http/hostile-input';
import { expectValid } from '../support/acp-schema';
import { startApp, TestApp } from '../support/app';
import { acpHeaders, SeededWorkspace, seedWorkspace } from '../support/seed';

/**
 * A cancel never fails because of its intent trace (docs/acp.md §4): whatever the trace holds
 * (within the body limits every route has), the answer is 200 canceled and the stored trace is
 * cut down to TRACE_LIMITS or dropped. (A body that is not a JSON object at all is refused at the
 * edge on every route, src/common/http/content-type.ts; that is the body, not a trace.)
 */
describe('ACP cancel with a malformed or oversized intent_trace', () => {
  let t: TestApp;
  let ws: SeededWorkspace;
  const base = '/acp/checkout_sessions';

  beforeAll(async () => {
    t = await startApp();
    ws = await seedWorkspace(t);
    await request(t.url)
      .put(`/v1/pay/agents/${ws.seller.id}/listing`)
      .set('Authorization', `Bearer ${ws.seller.credential}`)
      .send({
        listed: true,
        offers: [{ sku: 'tea', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' }],
      })
      .expect(200);
  });
  afterAll(() => t.close());

  async function openSession(): Promise<string> {
    const res = await request(t.url)
      .post(base)
      .set(acpHeaders(ws.merchantKey, `idem-${randomUUID()}`))
      .send({ line_items: [{ id: 'tea' }], currency: 'inr', capabilities: {} });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  }

  /** Cancels with `raw` as the body text; expects 200 canceled and returns the stored trace. */
  async function cancelWith(raw: string): Promise<unknown> {
    const id = await openSession();
    const res = await request(t.url)
      .post(`${base}/${id}/cancel`)
      .set(acpHeaders(ws.merchantKey, `idem-${randomUUID()}`))
      .set('Content-Type', 'application/json')
      .send(raw);
    expect(res.status).toBe(200);
    expectValid('CheckoutSession', res.body);
    expect((res.body as { status: string }).status).toBe('canceled');
    expect(res.text).not.toContain('intent_trace');
    const [row] = await t.db.query<{ status: string; intent_trace: unknown }[]>(
      'SELECT status, intent_trace FROM checkout_sessions WHERE id = $1',
      [id],
    );
    expect(row.status).toBe('canceled');
    return row.intent_trace;
  }

  const trace = (v: unknown) => JSON.stringify({ intent_trace: v });

  describe('wrong types', () => {
    it.each([
      ['a string trace', trace('price'), null],
      ['an array trace', trace([{ reason_code: 'comparison' }]), null],
      ['a number trace', trace(7), null],
      ['a null trace', trace(null), null],
      ['a numeric reason_code', trace({ reason_code: 3 }), { reason_code: 'other' }],
      ['an object reason_code', trace({ reason_code: { a: 1 } }), { reason_code: 'other' }],
      ['no reason_code', trace({}), { reason_code: 'other' }],
      [
        'an unknown reason_code',
        trace({ reason_code: 'buyer_cancelled' }),
        { reason_code: 'other' },
      ],
      [
        'a numeric trace_summary',
        trace({ reason_code: 'comparison', trace_summary: 42 }),
        { reason_code: 'comparison' },
      ],
      [
        'array metadata',
        trace({ reason_code: 'timing_deferred', metadata: ['a', 'b'] }),
        { reason_code: 'timing_deferred' },
      ],
      [
        'string metadata',
        trace({ reason_code: 'timing_deferred', metadata: 'a=b' }),
        { reason_code: 'timing_deferred' },
      ],
      [
        'metadata with null, array, object and flat values',
        trace({
          reason_code: 'shipping_cost',
          metadata: { n: null, list: [1], obj: { a: 1 }, s: 'x', num: 2.5, flag: true },
        }),
        { reason_code: 'shipping_cost', metadata: { s: 'x', num: 2.5, flag: true } },
      ],
    ])('%s', async (_name, raw, stored) => {
      expect(await cancelWith(raw)).toEqual(stored);
    });
  });

  it('unknown fields, in the body and in the trace, are dropped', async () => {
    expect(
      await cancelWith(
        JSON.stringify({
          note: 'top level',
          intent_trace: { reason_code: 'product_fit', description: 'x', score: 0.4 },
        }),
      ),
    ).toEqual({ reason_code: 'product_fit' });
  });

  it('huge strings are cut (summary, metadata values) or dropped (metadata keys)', async () => {
    const longKey = 'k'.repeat(TRACE_LIMITS.metadataKeyChars + 1);
    const stored = (await cancelWith(
      trace({
        reason_code: 'comparison',
        trace_summary: 's'.repeat(100_000),
        metadata: { long: 'v'.repeat(50_000), [longKey]: 'dropped', ok: 'kept' },
      }),
    )) as { trace_summary: string; metadata: Record<string, string> };
    expect(stored.trace_summary).toBe('s'.repeat(TRACE_LIMITS.summaryChars));
    expect(stored.metadata).toEqual({
      long: 'v'.repeat(TRACE_LIMITS.metadataValueChars),
      ok: 'kept',
    });
  });

  it('cuts by characters and never splits a surrogate pair', async () => {
    const stored = (await cancelWith(
      trace({ reason_code: 'other', trace_summary: '😀'.repeat(600) }),
    )) as { trace_summary: string };
    expect(Array.from(stored.trace_summary)).toHaveLength(TRACE_LIMITS.summaryChars);
    expect(stored.trace_summary).toBe('😀'.repeat(TRACE_LIMITS.summaryChars));
  });

  it('deep nesting within the body-depth limit is dropped', async () => {
    // {intent_trace: {metadata: {deep: …}}}: three levels of our own, the rest nested arrays/objects.
    let deep: unknown = 'bottom';
    for (let i = 0; i < MAX_BODY_DEPTH - 4; i++) {
      deep = i % 2 === 0 ? { d: deep } : [deep];
    }
    expect(
      await cancelWith(
        trace({ reason_code: 'trust_security', metadata: { deep, flat: 1 }, trace_summary: deep }),
      ),
    ).toEqual({ reason_code: 'trust_security', metadata: { flat: 1 } });
  });

  it('too many metadata entries: the first ones are kept, up to the limit', async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 5_000 }, (_, i) => [`key_${i}`, i % 2 === 0 ? `v${i}` : i]),
    );
    const stored = (await cancelWith(trace({ reason_code: 'payment_options', metadata }))) as {
      metadata: Record<string, unknown>;
    };
    expect(Object.keys(stored.metadata)).toEqual(
      Array.from({ length: TRACE_LIMITS.metadataEntries }, (_, i) => `key_${i}`),
    );
    expect(stored.metadata.key_1).toBe(1);
    // Bounded whatever was sent: well under a few kilobytes.
    expect(JSON.stringify(stored).length).toBeLessThan(8_000);
  });

  it('a replay of a cancel with a bad trace replays the 200 and stores the trace once', async () => {
    const id = await openSession();
    const key = `idem-${randomUUID()}`;
    const body = trace({
      reason_code: 9,
      metadata: { a: { b: 1 } },
      trace_summary: 'x'.repeat(900),
    });
    const send = () =>
      request(t.url)
        .post(`${base}/${id}/cancel`)
        .set(acpHeaders(ws.merchantKey, key))
        .set('Content-Type', 'application/json')
        .send(body);
    const first = await send();
    expect(first.status).toBe(200);
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
  });
});
