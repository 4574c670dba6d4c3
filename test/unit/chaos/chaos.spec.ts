import {
  capturesAccounted,
  clientAgrees,
  eventsGivenUp,
  eventStatesByPayment,
  formatCheck,
  IntentRow,
  no500,
  noDoubleDebit,
  nothingStuck,
  noUnmatchedEvents,
  oneSettledEventEach,
  retryAfterOn503,
  settledEventsDelivered,
} from '../../../chaos/invariants';
import { Rng, seedFrom } from '../../../chaos/rng';

const intent = (
  id: string,
  status = 'settled',
  source = `q_${id}`,
  ref: string | null = null,
): IntentRow => ({
  id,
  status,
  source_kind: 'quote',
  source_id: source,
  rail_reference: ref,
});

describe('chaos Rng (docs/testing.md "Chaos run")', () => {
  it('replays the same sequence for the same seed and another for another seed', () => {
    const run = (seed: number) => {
      const r = new Rng(seed);
      return Array.from({ length: 20 }, () => r.int(0, 1000));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });

  it('stays in range, and forks are reproducible and independent of each other', () => {
    const r = new Rng(5);
    for (let i = 0; i < 1000; i++) {
      const v = r.int(3, 7);
      expect(v).toBeGreaterThanOrEqual(3);
      expect(v).toBeLessThanOrEqual(7);
      const f = r.next();
      expect(f).toBeGreaterThanOrEqual(0);
      expect(f).toBeLessThan(1);
    }
    expect(new Rng(9).fork('kills').next()).toBe(new Rng(9).fork('kills').next());
    expect(new Rng(9).fork('kills').next()).not.toBe(new Rng(9).fork('flows').next());
    expect(() => r.int(5, 4)).toThrow();
    expect(() => r.pick([])).toThrow();
  });

  it('parses --seed strictly', () => {
    expect(seedFrom('123')).toBe(123);
    expect(() => seedFrom('-1')).toThrow();
    expect(() => seedFrom('1e3')).toThrow();
    const fresh = seedFrom(undefined);
    expect(Number.isInteger(fresh) && fresh >= 0).toBe(true);
  });
});

describe('chaos invariants over given rows', () => {
  it('no double debit: two debits of one intent, or two settled intents of one quote, fail', () => {
    expect(
      noDoubleDebit(
        [intent('a')],
        [{ intent_id: 'a', status: 'succeeded', gateway_payment_id: null }],
      ).ok,
    ).toBe(true);
    const twice = noDoubleDebit(
      [intent('a')],
      [
        { intent_id: 'a', status: 'succeeded', gateway_payment_id: null },
        { intent_id: 'a', status: 'succeeded', gateway_payment_id: null },
      ],
    );
    expect(twice.ok).toBe(false);
    expect(twice.detail).toContain('intent a debited 2 times');
    expect(noDoubleDebit([intent('a', 'settled', 'q1'), intent('b', 'settled', 'q1')], []).ok).toBe(
      false,
    );
    // A failed attempt beside the one that succeeded is not a second debit.
    expect(
      noDoubleDebit(
        [intent('a')],
        [
          { intent_id: 'a', status: 'failed', gateway_payment_id: null },
          { intent_id: 'a', status: 'succeeded', gateway_payment_id: null },
        ],
      ).ok,
    ).toBe(true);
  });

  it('captures: each settles exactly one intent or is refunded in full', () => {
    const intents = [intent('a', 'settled', 'q1', 'pay_A'), intent('b', 'declined', 'q2')];
    const debits = [{ intent_id: 'a', status: 'succeeded', gateway_payment_id: 'pay_A' }];
    const cap = (id: string, refunded = 0) => ({
      id,
      status: 'captured',
      amount: 1000,
      amount_refunded: refunded,
    });
    expect(capturesAccounted([cap('pay_A'), cap('pay_X', 1000)], intents, debits).ok).toBe(true);
    const orphan = capturesAccounted([cap('pay_A'), cap('pay_X', 500)], intents, debits);
    expect(orphan.ok).toBe(false);
    expect(orphan.detail).toContain('pay_X');
    // Failed payments do not count.
    expect(capturesAccounted([{ ...cap('pay_F'), status: 'failed' }], intents, debits).ok).toBe(
      true,
    );
  });

  it('captures: a hosted or link capture settled on its intent passes; one only recorded on its checkout, or held for a refund not yet made, fails (with what is known of it)', () => {
    // A hosted-page or payment-link capture settles its intent with rail_reference = the payment
    // id and a succeeded debit naming it (PaymentsService.settle): accounted for.
    const hosted = intent('h', 'settled', 'hco_1', 'pay_H');
    const debits = [{ intent_id: 'h', status: 'succeeded', gateway_payment_id: 'pay_H' }];
    const cap = (id: string, refunded = 0) => ({
      id,
      status: 'captured',
      amount: 21900,
      amount_refunded: refunded,
      order_id: `order_${id}`,
    });
    expect(capturesAccounted([cap('pay_H')], [hosted], debits).ok).toBe(true);
    expect(capturesAccounted([cap('pay_H')], [hosted], []).ok).toBe(true);
    // Genuinely orphaned: its hosted checkout knows the order, the intent never settled on it
    // (or settled on another payment), and the gateway has not refunded it, even though a
    // capture refund is recorded as due. The note says so; it does not excuse it.
    const notes = new Map([
      ['pay_O', 'order order_pay_O: hosted plk_1 (link created); events: payment.captured failed'],
    ]);
    const orphan = capturesAccounted(
      [cap('pay_H'), cap('pay_O'), cap('pay_D', 100)],
      [hosted, intent('o', 'declined', 'plk_1')],
      debits,
      notes,
    );
    expect(orphan.ok).toBe(false);
    expect(orphan.detail).toMatch(/^2: /);
    expect(orphan.detail).toContain(
      'pay_O (21900 paise, 0 refunded) settled no intent [order order_pay_O',
    );
    expect(orphan.detail).toContain('pay_D (21900 paise, 100 refunded)');
    // A second capture kept for the same settled intent fails too.
    const twice = capturesAccounted(
      [cap('pay_H'), cap('pay_H2')],
      [hosted, { ...hosted, id: 'h', rail_reference: 'pay_H2' }],
      [...debits, { intent_id: 'h', status: 'succeeded', gateway_payment_id: 'pay_H2' }],
    );
    expect(twice.ok).toBe(false);
    expect(twice.detail).toContain('intent h kept 2 captures');
  });

  it('simulator events: those given up are picked for redelivery, and grouped by payment', () => {
    const ev = (id: string, event: string, state: string, payment?: string) => ({
      id,
      event,
      state,
      body: payment ? { payload: { payment: { entity: { id: payment } } } } : {},
    });
    const events = [
      ev('evt_1', 'payment.captured', 'delivered', 'pay_A'),
      ev('evt_2', 'order.paid', 'failed', 'pay_A'),
      ev('evt_3', 'payment_link.paid', 'failed', 'pay_B'),
      ev('evt_4', 'payment.captured', 'queued', 'pay_B'),
      ev('evt_5', 'reserve_pay.block.active', 'failed'),
    ];
    expect(eventsGivenUp(events)).toEqual(['evt_2', 'evt_3', 'evt_5']);
    const byPayment = eventStatesByPayment(events);
    expect(byPayment.get('pay_A')).toBe('payment.captured delivered, order.paid failed');
    expect(byPayment.get('pay_B')).toBe('payment_link.paid failed, payment.captured queued');
    expect(byPayment.size).toBe(2);
  });

  it('intent.settled: exactly one per settled intent, none for others, and each delivered signed', () => {
    const intents = [intent('a'), intent('b', 'declined')];
    expect(oneSettledEventEach(intents, [{ type: 'intent.settled', subject_id: 'a' }]).ok).toBe(
      true,
    );
    expect(oneSettledEventEach(intents, []).ok).toBe(false);
    expect(
      oneSettledEventEach(intents, [
        { type: 'intent.settled', subject_id: 'a' },
        { type: 'intent.settled', subject_id: 'b' },
      ]).ok,
    ).toBe(false);
    const got = { id: 'evt_1', type: 'intent.settled', intent_id: 'a', signature_ok: true };
    expect(settledEventsDelivered(intents, [got, got]).ok).toBe(true);
    expect(settledEventsDelivered(intents, []).ok).toBe(false);
    expect(settledEventsDelivered(intents, [{ ...got, signature_ok: false }]).ok).toBe(false);
  });

  it('answers: no 5xx but 503, and every 503 with a Retry-After in seconds', () => {
    const a = (status: number | null, retry_after: string | null = null) => ({
      flow: 'f',
      step: 's',
      status,
      retry_after,
    });
    expect(no500([a(200), a(null), a(503, '1'), a(409)]).ok).toBe(true);
    expect(no500([a(500)]).ok).toBe(false);
    expect(no500([a(502)]).ok).toBe(false);
    expect(retryAfterOn503([a(503, '2'), a(200)]).ok).toBe(true);
    expect(retryAfterOn503([a(503)]).ok).toBe(false);
    expect(retryAfterOn503([a(503, 'soon')]).ok).toBe(false);
  });

  it('nothing stuck, unmatched events, and the client agreeing with the database', () => {
    expect(nothingStuck({ 'processing intents': 0 }).ok).toBe(true);
    expect(nothingStuck({ 'processing intents': 0, 'pending outbox events': 2 }).detail).toBe(
      '1: 2 pending outbox events',
    );
    expect(noUnmatchedEvents([{ id: 'e', type: 'order.paid', outcome: 'applied' }]).ok).toBe(true);
    expect(noUnmatchedEvents([{ id: 'e', type: 'order.paid', outcome: 'unmatched' }]).ok).toBe(
      false,
    );
    const o = (client: 'paid' | 'not_paid' | 'pending' | 'gave_up') => ({
      flow: 'acp#1',
      subject: 's1',
      client,
      answer: 'x',
    });
    expect(clientAgrees([o('paid')], new Set(['s1'])).ok).toBe(true);
    expect(clientAgrees([o('pending')], new Set(['s1'])).ok).toBe(true);
    expect(clientAgrees([o('not_paid')], new Set(['s1'])).ok).toBe(false);
    expect(clientAgrees([o('gave_up')], new Set(['s1'])).ok).toBe(false);
    expect(clientAgrees([o('paid')], new Set()).ok).toBe(false);
    expect(clientAgrees([o('not_paid')], new Set()).ok).toBe(true);
  });

  it('prints one PASS/FAIL line', () => {
    expect(formatCheck({ name: 'n', ok: true, detail: 'd' })).toBe('PASS  n — d');
    expect(formatCheck({ name: 'n', ok: false, detail: 'd' })).toBe('FAIL  n — d');
  });
});
