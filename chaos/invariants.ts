/**
 * The chaos run's invariants (docs/testing.md "Chaos run") as pure functions over rows the run
 * read from the database, the gateway simulator, the webhook receiver and its own clients. Each
 * returns one Check, printed as one PASS/FAIL line. Unit-tested in test/unit/chaos/.
 */

export interface Check {
  name: string;
  ok: boolean;
  /** What was counted, or the first few violations. */
  detail: string;
}

export interface IntentRow {
  id: string;
  status: string;
  source_kind: string;
  source_id: string;
  rail_reference: string | null;
}

export interface DebitRow {
  intent_id: string;
  status: string;
  gateway_payment_id: string | null;
}

/** A payment at the gateway (the simulator's state). */
export interface CaptureRow {
  id: string;
  status: string;
  amount: number;
  amount_refunded: number;
  order_id?: string;
}

/** One event of the simulator's webhook queue (`GET /__sim/webhooks/events`). */
export interface SimEventRow {
  id: string;
  event: string;
  /** queued (waiting or being retried), delivered, failed (gave up after its tries), held. */
  state: string;
  body?: { payload?: { payment?: { entity?: { id?: string } } } };
}

/**
 * Events the simulator gave up on (`failed`: webhookMaxAttempts tries in about 31 s, while the
 * app may be down longer than that in a chaos run), to be sent again as a real gateway's retries
 * (for many hours) would.
 */
export function eventsGivenUp(events: readonly SimEventRow[]): string[] {
  return events.filter((e) => e.state === 'failed').map((e) => e.id);
}

/** What the simulator's events say of each payment: `payment.captured delivered, order.paid failed`. */
export function eventStatesByPayment(events: readonly SimEventRow[]): Map<string, string> {
  const out = new Map<string, string[]>();
  for (const e of events) {
    const payment = e.body?.payload?.payment?.entity?.id;
    if (payment) {
      out.set(payment, [...(out.get(payment) ?? []), `${e.event} ${e.state}`]);
    }
  }
  return new Map([...out].map(([k, v]) => [k, v.join(', ')]));
}

export interface OutboxRow {
  type: string;
  subject_id: string;
}

/** What the webhook receiver recorded: one row per delivery (duplicates included). */
export interface ReceivedRow {
  id: string;
  type: string;
  intent_id: string | null;
  signature_ok: boolean;
}

/** One HTTP attempt of a chaos client (every retry is its own attempt). */
export interface AttemptRow {
  flow: string;
  step: string;
  /** null: no HTTP answer (connection refused or reset, timeout). */
  status: number | null;
  retry_after: string | null;
}

/**
 * A flow's last answer for the step that pays. `client` is what the client was told in the end:
 * `paid`, `not_paid` (a decline or a definite refusal), `pending` (in progress or waiting for a
 * person) or `gave_up` (no final answer within the retry bound).
 */
export interface FlowOutcome {
  flow: string;
  /** The checkout session or quote the flow paid. */
  subject: string;
  client: 'paid' | 'not_paid' | 'pending' | 'gave_up';
  /** The final answer, for the report (`409 quote_already_paid`). */
  answer: string;
}

export interface GatewayEventRow {
  id: string;
  type: string;
  outcome: string;
}

const MAX_SHOWN = 5;

function check(name: string, problems: string[], counted: string): Check {
  const shown = problems.slice(0, MAX_SHOWN).join('; ');
  const more = problems.length > MAX_SHOWN ? ` (+${problems.length - MAX_SHOWN} more)` : '';
  return {
    name,
    ok: problems.length === 0,
    detail: problems.length === 0 ? counted : `${problems.length}: ${shown}${more}`,
  };
}

function countBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = key(r);
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/** At most one succeeded debit per intent, and at most one settled intent per session or quote. */
export function noDoubleDebit(intents: readonly IntentRow[], debits: readonly DebitRow[]): Check {
  const problems: string[] = [];
  const succeeded = debits.filter((d) => d.status === 'succeeded');
  for (const [intent, n] of countBy(succeeded, (d) => d.intent_id)) {
    if (n > 1) {
      problems.push(`intent ${intent} debited ${n} times`);
    }
  }
  const settled = intents.filter((i) => i.status === 'settled');
  for (const [source, n] of countBy(settled, (i) => `${i.source_kind}:${i.source_id}`)) {
    if (n > 1) {
      problems.push(`${source} settled ${n} intents`);
    }
  }
  return check(
    'no intent debited twice',
    problems,
    `${settled.length} settled intents, ${succeeded.length} debits`,
  );
}

/**
 * Every captured gateway payment either settled exactly one intent (its id on the intent's
 * succeeded debit, or the intent's rail reference) or was refunded in full at the gateway; and
 * no settled intent has two captures kept. Only those two count: a capture that our database
 * merely knows of (its hosted checkout or payment link, a capture refund still `due` or
 * `requested`) is not accounted for. `notes` (optional) says, per payment id, what the database
 * and the simulator's webhook queue know of it, shown with each violation.
 */
export function capturesAccounted(
  captures: readonly CaptureRow[],
  intents: readonly IntentRow[],
  debits: readonly DebitRow[],
  notes: ReadonlyMap<string, string> = new Map(),
): Check {
  const settledIntents = new Set(intents.filter((i) => i.status === 'settled').map((i) => i.id));
  const intentOfPayment = new Map<string, string>();
  for (const d of debits) {
    if (d.status === 'succeeded' && d.gateway_payment_id && settledIntents.has(d.intent_id)) {
      intentOfPayment.set(d.gateway_payment_id, d.intent_id);
    }
  }
  for (const i of intents) {
    if (i.status === 'settled' && i.rail_reference && !intentOfPayment.has(i.rail_reference)) {
      intentOfPayment.set(i.rail_reference, i.id);
    }
  }
  const problems: string[] = [];
  const kept: { payment: string; intent: string }[] = [];
  const captured = captures.filter((c) => c.status === 'captured');
  let refundedInFull = 0;
  for (const c of captured) {
    if (c.amount_refunded >= c.amount) {
      refundedInFull++;
      continue;
    }
    const intent = intentOfPayment.get(c.id);
    if (intent === undefined) {
      const note = notes.get(c.id);
      problems.push(
        `capture ${c.id} (${c.amount} paise, ${c.amount_refunded} refunded) settled no intent${note ? ` [${note}]` : ''}`,
      );
    } else {
      kept.push({ payment: c.id, intent });
    }
  }
  for (const [intent, n] of countBy(kept, (k) => k.intent)) {
    if (n > 1) {
      problems.push(`intent ${intent} kept ${n} captures`);
    }
  }
  return check(
    'every gateway capture settled exactly one intent or was refunded in full',
    problems,
    `${captured.length} captures: ${kept.length} settled, ${refundedInFull} refunded in full`,
  );
}

/** Exactly one `intent.settled` outbox event per settled intent, none for any other. */
export function oneSettledEventEach(
  intents: readonly IntentRow[],
  outbox: readonly OutboxRow[],
): Check {
  const events = countBy(
    outbox.filter((e) => e.type === 'intent.settled'),
    (e) => e.subject_id,
  );
  const problems: string[] = [];
  let settled = 0;
  for (const i of intents) {
    const n = events.get(i.id) ?? 0;
    if (i.status === 'settled') {
      settled++;
      if (n !== 1) {
        problems.push(`settled intent ${i.id} has ${n} intent.settled events`);
      }
    } else if (n !== 0) {
      problems.push(`${i.status} intent ${i.id} has ${n} intent.settled events`);
    }
  }
  return check('one intent.settled event per settled intent', problems, `${settled} events`);
}

/** Every settled intent's event reached the receiver, correctly signed. */
export function settledEventsDelivered(
  intents: readonly IntentRow[],
  received: readonly ReceivedRow[],
): Check {
  const got = new Set(
    received
      .filter((r) => r.type === 'intent.settled' && r.signature_ok && r.intent_id)
      .map((r) => r.intent_id as string),
  );
  const problems: string[] = [];
  for (const i of intents) {
    if (i.status === 'settled' && !got.has(i.id)) {
      problems.push(`intent ${i.id}: intent.settled never delivered`);
    }
  }
  const badSignatures = received.filter((r) => !r.signature_ok).length;
  if (badSignatures > 0) {
    problems.push(`${badSignatures} deliveries with a bad signature`);
  }
  return check(
    'every intent.settled delivered to the receiver',
    problems,
    `${got.size} delivered (${received.length} deliveries in all)`,
  );
}

/** No 5xx other than 503 (the one server error a client is told to retry). */
export function no500(attempts: readonly AttemptRow[]): Check {
  const bad = attempts.filter((a) => a.status !== null && a.status >= 500 && a.status !== 503);
  return check(
    'no 500 ever answered',
    bad.map((a) => `${a.flow} ${a.step}: ${a.status}`),
    `${attempts.length} attempts`,
  );
}

export function retryAfterOn503(attempts: readonly AttemptRow[]): Check {
  const all = attempts.filter((a) => a.status === 503);
  const bad = all.filter((a) => !a.retry_after || !/^\d+$/.test(a.retry_after.trim()));
  return check(
    'every 503 carried Retry-After',
    bad.map((a) => `${a.flow} ${a.step}: 503 without Retry-After`),
    `${all.length} answers 503`,
  );
}

/** Counts of things that must be zero once the system settled (`processing` intents, pending outbox…). */
export function nothingStuck(counts: Readonly<Record<string, number>>): Check {
  const problems = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([what, n]) => `${n} ${what}`);
  return check(
    'nothing stuck after settling',
    problems,
    Object.keys(counts).join(', ') + ': all 0',
  );
}

/**
 * The client's final answer agrees with the database: never told "not paid" (or left with an
 * error) for a payment that went through, never told "paid" for one that did not. `paid` is the
 * set of sessions/quotes the database shows paid.
 */
export function clientAgrees(outcomes: readonly FlowOutcome[], paid: ReadonlySet<string>): Check {
  const problems: string[] = [];
  for (const o of outcomes) {
    const reallyPaid = paid.has(o.subject);
    if (reallyPaid && (o.client === 'not_paid' || o.client === 'gave_up')) {
      problems.push(
        `${o.flow} ${o.subject} was paid but the client's final answer was ${o.answer}`,
      );
    } else if (!reallyPaid && o.client === 'paid') {
      problems.push(`${o.flow} ${o.subject} told paid (${o.answer}) but is not`);
    }
  }
  return check(
    "every retried request's final answer agrees with the database",
    problems,
    `${outcomes.length} flows`,
  );
}

export function noUnmatchedEvents(events: readonly GatewayEventRow[]): Check {
  const bad = events.filter((e) => e.outcome === 'unmatched');
  return check(
    'no unmatched gateway events about our own payments',
    bad.map((e) => `${e.type} ${e.id}`),
    `${events.length} gateway events`,
  );
}

export function formatCheck(c: Check): string {
  return `${c.ok ? 'PASS' : 'FAIL'}  ${c.name} — ${c.detail}`;
}
