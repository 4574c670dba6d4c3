import type { JSONWebKeySet } from 'jose';
import { Client } from 'pg';

import type { ChainEntryJson } from '../src/chains/chain-entry';
import { verifyChain } from '../src/chains/verify-chain';
import { API_VERSION, Http, mapLimit } from './http';
import type { LoadGenerator } from './load-client';
import type { FlowJob, FlowResult, LoadJob, LoadResult } from './protocol';
import { FLOW_STEPS } from './protocol';
import {
  CATEGORY,
  completeItem,
  CREATE_BODY,
  createSession,
  mintPairs,
  newKey,
  TEA,
  World,
} from './seed';
import type { BenchOptions } from './setup';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioOutcome {
  id: string;
  title: string;
  measures: string;
  result: LoadResult;
  checks: Check[];
  /** Scenario-specific figures (e.g. completes/s). */
  extra: Record<string, number | string>;
  /** Printed under the scenario's row (e.g. the full flow's per-step table). */
  lines?: string[];
  /** Written with the scenario in bench/results/latest.json. */
  json?: Record<string, unknown>;
}

export interface BenchContext {
  opts: BenchOptions;
  baseUrl: string;
  http: Http;
  db: Client;
  world: World;
  load: LoadGenerator;
  /** Set by the create scenario; sizes the complete scenario's token pool. */
  createRps?: number;
  /** Payments completed outside the measured phases (warm-up, recovered in-flight requests). */
  completedUnmeasured: number;
}

export interface Scenario {
  id: string;
  title: string;
  measures: string;
  run(ctx: BenchContext): Promise<ScenarioOutcome>;
}

function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail };
}

async function count(db: Client, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: string }>(sql, params);
  return Number(rows[0].n);
}

export function rate(n: number, seconds: number): number {
  return seconds > 0 ? Math.round((n / seconds) * 10) / 10 : 0;
}

/** Every response had the expected status and the transport never failed. */
function transportChecks(r: LoadResult, expected: number): Check[] {
  const other = Object.entries(r.statusCounts).filter(([code]) => Number(code) !== expected);
  return [
    check('responses received', r.responses > 0, `${r.responses} responses`),
    check(
      `every response is ${expected}`,
      other.length === 0,
      other.length === 0
        ? `${r.responses} × ${expected}`
        : `unexpected: ${JSON.stringify(Object.fromEntries(other))}`,
    ),
    check(
      'no connection errors or timeouts',
      r.errors === 0 && r.timeouts === 0,
      `errors ${r.errors}, timeouts ${r.timeouts}`,
    ),
  ];
}

function job(
  ctx: BenchContext,
  name: string,
  rest: Omit<LoadJob, 'name' | 'baseUrl' | 'durationS' | 'connections'>,
): LoadJob {
  return {
    name,
    baseUrl: ctx.baseUrl,
    durationS: ctx.opts.durationS,
    connections: ctx.opts.connections,
    ...rest,
  };
}

function merchantHeaders(world: World, withBody: boolean): Record<string, string> {
  return {
    Authorization: `Bearer ${world.merchantKey}`,
    'API-Version': API_VERSION,
    ...(withBody ? { 'Content-Type': 'application/json' } : {}),
  };
}

interface Recovered {
  http: number;
  id: string | null;
  status: string | null;
}

/**
 * Requests the load generator sent but stopped waiting for (the run ended while they were in
 * flight) may still have been done by the server. A client that lost a response retries with the
 * same Idempotency-Key; so do we, until the in-flight twin has finished (409 → wait). Afterwards
 * the database is quiet and every side effect is accounted for.
 */
async function recover(
  ctx: BenchContext,
  result: Pick<LoadResult, 'unanswered'>,
): Promise<Recovered[]> {
  return mapLimit(result.unanswered, 4, async (req) => {
    for (let attempt = 0; ; attempt++) {
      const res = await ctx.http.request<{ id?: string; status?: string }>('POST', req.path, {
        bearer: ctx.world.merchantKey,
        acp: true,
        idempotent: req.key,
        body: JSON.parse(req.body) as unknown,
      });
      if (res.status !== 409 || attempt >= 100) {
        return { http: res.status, id: res.body?.id ?? null, status: res.body?.status ?? null };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

/** The same requests for BENCH_WARMUP_S, unmeasured; unanswered ones are recovered so nothing is still running after. */
async function warmup(
  ctx: BenchContext,
  spec: LoadJob,
): Promise<{ result: LoadResult; recovered: Recovered[] } | null> {
  if (ctx.opts.warmupS === 0) {
    return null;
  }
  const idempotency =
    spec.idempotency?.mode === 'unique'
      ? { mode: 'unique' as const, prefix: newKey('bench-warmup') }
      : spec.idempotency;
  const result = await ctx.load.run({
    ...spec,
    name: `${spec.name}-warmup`,
    durationS: ctx.opts.warmupS,
    idempotency,
  });
  return { result, recovered: await recover(ctx, result) };
}

function outcome(
  s: Scenario,
  result: LoadResult,
  checks: Check[],
  extra: ScenarioOutcome['extra'] = {},
): ScenarioOutcome {
  return { id: s.id, title: s.title, measures: s.measures, result, checks, extra };
}

/** A scenario that only reads: warm up, measure, every response must be `expected`. */
async function readOnly(
  ctx: BenchContext,
  s: Scenario,
  spec: LoadJob,
  expected: number,
): Promise<ScenarioOutcome> {
  await warmup(ctx, spec);
  const result = await ctx.load.run(spec);
  return outcome(s, result, transportChecks(result, expected));
}

const SESSIONS = 'SELECT count(*) AS n FROM checkout_sessions';
const IDEMPOTENCY_RECORDS = 'SELECT count(*) AS n FROM idempotency_records';

const health: Scenario = {
  id: '1',
  title: 'GET /health',
  measures: 'baseline: routing, middleware, SELECT 1 and a Redis PING',
  run(ctx) {
    return readOnly(
      ctx,
      this,
      job(ctx, 'health', { method: 'GET', path: '/health', headers: {} }),
      200,
    );
  },
};

const create: Scenario = {
  id: '2',
  title: 'POST /acp/checkout_sessions',
  measures:
    'a new session per request (unique Idempotency-Key): auth, idempotency lock + record, pricing, insert',
  async run(ctx) {
    const spec = job(ctx, 'create', {
      method: 'POST',
      path: '/acp/checkout_sessions',
      headers: merchantHeaders(ctx.world, true),
      body: JSON.stringify(CREATE_BODY),
      idempotency: { mode: 'unique', prefix: newKey('bench-create') },
      collectBodies: true,
    });
    await warmup(ctx, spec);
    const before = await count(ctx.db, SESSIONS);
    const result = await ctx.load.run(spec);
    const recovered = await recover(ctx, result);
    const created = (await count(ctx.db, SESSIONS)) - before;
    const ok201 = result.statusCounts['201'] ?? 0;
    const recovered201 = recovered.filter((r) => r.http === 201).length;
    const ready = result.bodies.filter(
      (b) => b.http === 201 && b.status === 'ready_for_payment',
    ).length;
    ctx.createRps = rate(result.responses, result.elapsedS);
    return outcome(
      this,
      result,
      [
        ...transportChecks(result, 201),
        check('every session is ready_for_payment', ready === ok201, `${ready} of ${ok201}`),
        check(
          'stored sessions = 201 responses (+ in-flight at the end, recovered by replay)',
          created === ok201 + recovered201 && recovered201 === recovered.length,
          `${created} rows; ${ok201} × 201 + ${recovered201}/${recovered.length} recovered`,
        ),
      ],
      { sessions_created: created, in_flight_recovered: recovered.length },
    );
  },
};

const get: Scenario = {
  id: '3',
  title: 'GET /acp/checkout_sessions/:id',
  measures: 'read one pre-created session (auth + load + render)',
  async run(ctx) {
    const id = await createSession(ctx.http, ctx.world);
    const spec = job(ctx, 'get', {
      method: 'GET',
      path: `/acp/checkout_sessions/${id}`,
      headers: merchantHeaders(ctx.world, false),
    });
    return readOnly(ctx, this, spec, 200);
  },
};

/** Replays must answer the stored 201 and create nothing. */
async function replayChecks(
  ctx: BenchContext,
  result: LoadResult,
  sessionsBefore: number,
  recordsBefore: number,
): Promise<Check[]> {
  const created = (await count(ctx.db, SESSIONS)) - sessionsBefore;
  const stored = (await count(ctx.db, IDEMPOTENCY_RECORDS)) - recordsBefore;
  const ok = result.statusCounts['201'] ?? 0;
  return [
    check(
      'every 201 is a replay (Idempotent-Replayed: true)',
      result.replayed === ok,
      `${result.replayed} of ${ok}`,
    ),
    check('no session created by replays', created === 0, `${created} new sessions`),
    check('no idempotency record written by replays', stored === 0, `${stored} new records`),
  ];
}

async function replayRun(
  ctx: BenchContext,
  name: string,
  keys: string[],
): Promise<{ result: LoadResult; checks: Check[] }> {
  for (const key of new Set(keys)) {
    await createSession(ctx.http, ctx.world, key);
  }
  const spec = job(ctx, name, {
    method: 'POST',
    path: '/acp/checkout_sessions',
    headers: merchantHeaders(ctx.world, true),
    body: JSON.stringify(CREATE_BODY),
    idempotency: { mode: 'per-connection', keys },
  });
  await warmup(ctx, spec);
  const sessionsBefore = await count(ctx.db, SESSIONS);
  const recordsBefore = await count(ctx.db, IDEMPOTENCY_RECORDS);
  const result = await ctx.load.run(spec);
  return { result, checks: await replayChecks(ctx, result, sessionsBefore, recordsBefore) };
}

const replay: Scenario = {
  id: '4',
  title: 'POST create, idempotent replay',
  measures:
    'same Idempotency-Key + body again, each connection its own key: lock, lookup, stored response',
  async run(ctx) {
    const keys = Array.from({ length: ctx.opts.connections }, () => newKey('bench-replay'));
    const { result, checks } = await replayRun(ctx, 'replay', keys);
    return outcome(this, result, [...transportChecks(result, 201), ...checks]);
  },
};

const replayShared: Scenario = {
  id: '4b',
  title: 'POST create, replay, one key for all',
  measures:
    'every connection replays the SAME key at once; a twin that meets the in-flight advisory lock gets 409 idempotency_in_flight (documented, counted, not a failure)',
  async run(ctx) {
    const { result, checks } = await replayRun(ctx, 'replay-shared', [
      newKey('bench-replay-shared'),
    ]);
    const other = Object.entries(result.statusCounts).filter(
      ([code]) => code !== '201' && code !== '409',
    );
    return outcome(
      this,
      result,
      [
        check('responses received', result.responses > 0, `${result.responses} responses`),
        check(
          'only 201 (replay) or 409 (in flight)',
          other.length === 0,
          JSON.stringify(result.statusCounts),
        ),
        check(
          'no connection errors or timeouts',
          result.errors === 0 && result.timeouts === 0,
          `errors ${result.errors}, timeouts ${result.timeouts}`,
        ),
        ...checks,
      ],
      {
        replays_per_s: rate(result.statusCounts['201'] ?? 0, result.elapsedS),
        in_flight_409: result.statusCounts['409'] ?? 0,
      },
    );
  },
};

/** Fetches receipts as their buyer and verifies each chain offline against the service's JWKS. */
async function verifyReceipts(
  ctx: BenchContext,
  receipts: { id: string; buyerKey: string }[],
): Promise<Check> {
  const jwks = await ctx.http.expect<JSONWebKeySet>(200, 'GET', '/.well-known/jwks.json');
  const bad: string[] = [];
  await mapLimit(receipts, 4, async ({ id, buyerKey }) => {
    const res = await ctx.http.request<{ entries: ChainEntryJson[] }>(
      'GET',
      `/acp/receipts/${id}`,
      { bearer: buyerKey, acp: true },
    );
    const verdict = res.status === 200 ? await verifyChain(res.body.entries, jwks) : null;
    if (!verdict?.valid) {
      bad.push(`${id}: ${verdict?.reason ?? `HTTP ${res.status}`}`);
    }
  });
  return check(
    `sampled receipts verify offline (${receipts.length})`,
    receipts.length > 0 && bad.length === 0,
    bad.length === 0 ? `${receipts.length} valid` : bad.slice(0, 3).join('; '),
  );
}

/**
 * Explicit BENCH_COMPLETE_POOL, or what the duration would use at the create scenario's rate:
 * a complete does everything a create does and much more (it measured at a half to a quarter of
 * the create rate), so this leaves about 2× headroom without minting thousands of unused pairs.
 */
function poolSize(ctx: BenchContext): number {
  if (ctx.opts.poolSize !== null) {
    return ctx.opts.poolSize;
  }
  if (ctx.createRps === undefined) {
    return 3000;
  }
  return Math.min(3000, Math.max(300, Math.ceil(ctx.createRps * ctx.opts.durationS)));
}

const complete: Scenario = {
  id: '5',
  title: 'POST …/complete (full payment)',
  measures:
    'one pre-minted session + delegated token per request, ₹450 (no approval): token, buyer rules, rail debit, signed receipt, outbox',
  async run(ctx) {
    const n = poolSize(ctx);
    const warm = ctx.opts.warmupS > 0 ? ctx.opts.connections * 5 : 0;
    const started = Date.now();
    const pairs = await mintPairs(ctx.http, ctx.world, n + warm, 8);
    const mintS = (Date.now() - started) / 1000;
    const warmPairs = pairs.slice(n);
    const measured = pairs.slice(0, n);
    const spec = (name: string, items: typeof pairs) =>
      job(ctx, name, {
        method: 'POST',
        path: '/acp/checkout_sessions/unused/complete',
        headers: merchantHeaders(ctx.world, true),
        idempotency: { mode: 'unique', prefix: newKey(`bench-${name}`) },
        pool: items.map(completeItem),
        collectBodies: true,
      });
    const completedOf = (bodies: Recovered[]) =>
      bodies.filter((b) => b.http === 200 && b.status === 'completed').length;

    if (warm > 0) {
      const w = await warmup(ctx, spec('complete', warmPairs));
      ctx.completedUnmeasured += w ? completedOf(w.result.bodies) + completedOf(w.recovered) : 0;
    }
    const result = await ctx.load.run(spec('complete', measured));
    const recovered = await recover(ctx, result);
    const ok200 = result.statusCounts['200'] ?? 0;
    const completed = completedOf(result.bodies);
    const recoveredCompleted = completedOf(recovered);
    ctx.completedUnmeasured += recoveredCompleted;

    const sessionIds = measured.map((p) => p.sessionId);
    const settled = await count(
      ctx.db,
      `SELECT count(*) AS n FROM payment_intents WHERE source_id = ANY($1) AND status = 'settled'`,
      [sessionIds],
    );
    const sessionsCompleted = await count(
      ctx.db,
      `SELECT count(*) AS n FROM checkout_sessions WHERE id = ANY($1) AND status = 'completed'`,
      [sessionIds],
    );
    const debits = await count(
      ctx.db,
      `SELECT count(*) AS n FROM rail_transfers t JOIN payment_intents i ON i.id = t.intent_id WHERE i.source_id = ANY($1)`,
      [sessionIds],
    );
    const { rows: intents } = await ctx.db.query<{
      receipt_id: string | null;
      buyer_agent_id: string;
    }>(
      `SELECT receipt_id, buyer_agent_id FROM payment_intents WHERE source_id = ANY($1) AND status = 'settled' ORDER BY settled_at`,
      [sessionIds],
    );
    const receiptIds = intents.flatMap((r) => (r.receipt_id ? [r.receipt_id] : []));
    const firstEntries = await count(
      ctx.db,
      'SELECT count(*) AS n FROM chain_entries WHERE chain_id = ANY($1) AND seq = 1',
      [receiptIds],
    );
    const keyOf = new Map(ctx.world.buyers.map((b) => [b.id, b.buyerKey]));
    const step = Math.max(1, Math.floor(intents.length / 20));
    const sample = intents
      .filter((r, i) => r.receipt_id !== null && i % step === 0)
      .slice(0, 20)
      .map((r) => ({ id: r.receipt_id!, buyerKey: keyOf.get(r.buyer_agent_id)! }));
    const exhausted =
      result.poolUsed >= measured.length && result.elapsedS < ctx.opts.durationS - 0.5;
    const paid = completed + recoveredCompleted;

    return outcome(
      this,
      result,
      [
        ...transportChecks(result, 200),
        check('every 200 is status completed', completed === ok200, `${completed} of ${ok200}`),
        check(
          'settled intents = completed responses (+ in-flight at the end, recovered by replay)',
          settled === paid && recoveredCompleted === recovered.length,
          `${settled} settled; ${completed} completed + ${recoveredCompleted}/${recovered.length} recovered`,
        ),
        check(
          'sessions completed = settled intents',
          sessionsCompleted === settled,
          `${sessionsCompleted} sessions`,
        ),
        check('one debit per settled intent', debits === settled, `${debits} debits`),
        check(
          'a receipt (chain entry 1) per settled intent',
          receiptIds.length === settled && firstEntries === settled,
          `${receiptIds.length} receipt ids, ${firstEntries} entries`,
        ),
        await verifyReceipts(ctx, sample),
        check(
          'token pool lasted the whole duration',
          !exhausted,
          exhausted
            ? `all ${measured.length} pairs used after ${result.elapsedS} s: raise BENCH_COMPLETE_POOL`
            : `${result.poolUsed} of ${measured.length} pairs sent`,
        ),
      ],
      {
        completes_per_s: rate(completed, result.elapsedS),
        completed,
        in_flight_recovered: recovered.length,
        pool: measured.length,
        buyers: ctx.world.buyers.length,
        mint_pairs_per_s: rate(pairs.length, mintS),
      },
    );
  },
};

const sellers: Scenario = {
  id: '6',
  title: `GET /v1/pay/sellers?category=${CATEGORY}`,
  measures: 'seller search, one page (20 sellers) with their matching offers, agent credential',
  async run(ctx) {
    const path = `/v1/pay/sellers?category=${CATEGORY}`;
    const bearer = ctx.world.buyers[0].credential;
    const page = await ctx.http.expect<{ data: unknown[] }>(200, 'GET', path, { bearer });
    const expected = Math.min(20, ctx.world.sellersInCategory);
    const o = await readOnly(
      ctx,
      this,
      job(ctx, 'sellers', { method: 'GET', path, headers: { Authorization: `Bearer ${bearer}` } }),
      200,
    );
    o.checks.push(
      check(
        'a full page of sellers',
        page.data.length === expected,
        `${page.data.length} sellers (expected ${expected})`,
      ),
    );
    return o;
  },
};

/** One run of the virtual agents plus the replays of its completes that lost their answer. */
interface FlowRun {
  result: FlowResult;
  recovered: Recovered[];
}

async function flowRun(ctx: BenchContext, name: string, durationS: number): Promise<FlowRun> {
  const spec: FlowJob = {
    kind: 'flow',
    name,
    baseUrl: ctx.baseUrl,
    durationS,
    agents: ctx.opts.flowAgents,
    merchantKey: ctx.world.merchantKey,
    sellerId: ctx.world.seller.id,
    buyers: ctx.world.buyers.map(({ id, buyerKey, mandateId }) => ({ id, buyerKey, mandateId })),
    createBody: CREATE_BODY,
    amountPaise: TEA.unit_paise,
    keyPrefix: newKey(`bench-${name}`),
    timeoutS: 10,
  };
  const result = await ctx.load.runFlow(spec);
  const recovered = await recover(ctx, { unanswered: result.unansweredCompletes });
  return { result, recovered };
}

function statusText(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? '-' : entries.map(([code, n]) => `${code}×${n}`).join(' ');
}

/** Per-step table printed under the scenario's row. */
function flowLines(r: FlowResult, warm: FlowResult | null): string[] {
  const rows = FLOW_STEPS.map((name) => {
    const st = r.steps[name];
    const failed = st.errors + st.timeouts;
    return [
      name,
      String(st.requests),
      rate(st.requests, r.elapsedS).toFixed(1),
      st.latencyMs.p50.toFixed(1),
      st.latencyMs.p95.toFixed(1),
      st.latencyMs.p99.toFixed(1),
      st.latencyMs.max.toFixed(1),
      statusText(st.statusCounts) + (failed ? ` transport×${failed}` : ''),
    ];
  });
  const f = r.flowLatencyMs;
  rows.push([
    'flow (all three)',
    String(r.flowsCompleted),
    rate(r.flowsCompletedInWindow, r.durationS).toFixed(1),
    f.p50.toFixed(1),
    f.p95.toFixed(1),
    f.p99.toFixed(1),
    f.max.toFixed(1),
    `${r.flowsStarted} started, ${r.flowsCompleted} completed`,
  ]);
  const header = ['step', 'calls', 'per s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'statuses'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const fmt = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 || i === 7 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`.trimEnd();
  const calls = FLOW_STEPS.reduce((n, name) => n + r.steps[name].requests, 0);
  const lines = [
    fmt(header),
    ...rows.map(fmt),
    `  ${rate(r.flowsCompletedInWindow, r.durationS)} flows/s (${r.flowsCompletedInWindow} completed in the ${r.durationS} s window; the flows in progress then finished, last answer at ${r.elapsedS} s)`,
    `  interleaving: ${r.interleaved} of ${calls} calls started while another step of the same buyer was in flight; up to ${r.maxInFlightPerBuyer} calls of one buyer at once`,
  ];
  if (warm) {
    lines.push(
      `  warm-up: ${warm.flowsCompleted} flows; ${FLOW_STEPS.map((name) => `${name} ${statusText(warm.steps[name].statusCounts)}`).join(', ')}`,
    );
  }
  for (const sample of [...r.failureSamples, ...(warm?.failureSamples ?? [])].slice(0, 5)) {
    lines.push(`  ${sample.step} → ${sample.http ?? 'no answer'}: ${sample.body}`);
  }
  return lines;
}

/** Calls that answered 5xx, per step, over the given runs (replays of lost completes included). */
function serverErrors(runs: FlowRun[]): { total: number; byStep: Record<string, number> } {
  const byStep: Record<string, number> = {};
  let total = 0;
  for (const { result, recovered } of runs) {
    for (const name of FLOW_STEPS) {
      for (const [code, n] of Object.entries(result.steps[name].statusCounts)) {
        if (Number(code) >= 500) {
          byStep[`${name} ${code}`] = (byStep[`${name} ${code}`] ?? 0) + n;
          total += n;
        }
      }
    }
    for (const r of recovered.filter((x) => x.http >= 500)) {
      byStep[`complete (replayed) ${r.http}`] = (byStep[`complete (replayed) ${r.http}`] ?? 0) + 1;
      total++;
    }
  }
  return { total, byStep };
}

const fullFlow: Scenario = {
  id: '7',
  title: 'full flow: create → delegate → complete',
  measures:
    'BENCH_FLOW_AGENTS virtual agents over the buyers, each looping create session → delegate_payment (buyer key, standing mandate) → complete with fresh Idempotency-Keys, ₹450 (no approval); calls for one buyer interleave; any 5xx fails. Row: flows/s and latency per flow',
  async run(ctx) {
    // Postgres's own count of deadlocks it broke in this database (informational: the service
    // may retry them; what fails the scenario is a 5xx reaching the client).
    const deadlocks = () =>
      count(
        ctx.db,
        'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()',
      );
    const deadlocksBefore = await deadlocks();
    const warm = ctx.opts.warmupS > 0 ? await flowRun(ctx, 'flow-warmup', ctx.opts.warmupS) : null;
    const measured = await flowRun(ctx, 'flow', ctx.opts.flowDurationS);
    const runs = warm ? [warm, measured] : [measured];
    const r = measured.result;
    const completedOf = (bodies: Recovered[]) =>
      bodies.filter((b) => b.http === 200 && b.status === 'completed').length;
    const measuredRecovered = completedOf(measured.recovered);
    ctx.completedUnmeasured +=
      measuredRecovered + (warm ? warm.result.flowsCompleted + completedOf(warm.recovered) : 0);
    const answered = runs.reduce(
      (n, run) => n + run.result.flowsCompleted + completedOf(run.recovered),
      0,
    );
    const sessionIds = runs.flatMap((run) => run.result.sessionIds);

    // Invariants over every session this scenario created (warm-up included).
    const scoped = `FROM payment_intents i WHERE i.source_kind = 'checkout' AND i.source_id = ANY($1)`;
    const settled = await count(ctx.db, `SELECT count(*) AS n ${scoped} AND i.status = 'settled'`, [
      sessionIds,
    ]);
    const { rows: byStatus } = await ctx.db.query<{ status: string; n: string }>(
      `SELECT i.status, count(*) AS n ${scoped} GROUP BY i.status ORDER BY i.status`,
      [sessionIds],
    );
    const sessionsCompleted = await count(
      ctx.db,
      `SELECT count(*) AS n FROM checkout_sessions WHERE id = ANY($1) AND status = 'completed'`,
      [sessionIds],
    );
    // A settled intent has exactly one debit; no intent has two.
    const badDebits = await count(
      ctx.db,
      `SELECT count(*) AS n FROM (
         SELECT i.status, (SELECT count(*) FROM rail_transfers t WHERE t.intent_id = i.id AND t.direction = 'debit') AS d
         ${scoped}) x
        WHERE (x.status = 'settled' AND x.d <> 1) OR x.d > 1`,
      [sessionIds],
    );
    const debits = await count(
      ctx.db,
      `SELECT count(*) AS n FROM rail_transfers t JOIN payment_intents i ON i.id = t.intent_id
        WHERE i.source_kind = 'checkout' AND i.source_id = ANY($1) AND t.direction = 'debit'`,
      [sessionIds],
    );
    const unpaidCompleted = await count(
      ctx.db,
      `SELECT count(*) AS n FROM checkout_sessions s WHERE s.id = ANY($1) AND s.status = 'completed'
         AND NOT EXISTS (SELECT 1 FROM payment_intents i JOIN chain_entries c ON c.chain_id = i.receipt_id AND c.seq = 1
                          WHERE i.source_kind = 'checkout' AND i.source_id = s.id AND i.status = 'settled')`,
      [sessionIds],
    );
    const badOutbox = await count(
      ctx.db,
      `SELECT count(*) AS n ${scoped} AND i.status = 'settled'
         AND (SELECT count(*) FROM outbox_events o WHERE o.type = 'intent.settled' AND o.subject_id = i.id) <> 1`,
      [sessionIds],
    );
    const outboxEvents = await count(
      ctx.db,
      `SELECT count(*) AS n FROM outbox_events o JOIN payment_intents i ON i.id = o.subject_id
        WHERE o.type = 'intent.settled' AND i.source_kind = 'checkout' AND i.source_id = ANY($1)`,
      [sessionIds],
    );
    const { rows: intents } = await ctx.db.query<{
      receipt_id: string | null;
      buyer_agent_id: string;
    }>(
      `SELECT i.receipt_id, i.buyer_agent_id ${scoped} AND i.status = 'settled' ORDER BY i.settled_at`,
      [sessionIds],
    );
    const keyOf = new Map(ctx.world.buyers.map((b) => [b.id, b.buyerKey]));
    const step = Math.max(1, Math.floor(intents.length / 20));
    const sample = intents
      .filter((row, i) => row.receipt_id !== null && i % step === 0)
      .slice(0, 20)
      .map((row) => ({ id: row.receipt_id!, buyerKey: keyOf.get(row.buyer_agent_id)! }));

    const fivexx = serverErrors(runs);
    const deadlocksSeen = (await deadlocks()) - deadlocksBefore;
    const transport = runs.reduce(
      (n, run) =>
        n +
        FLOW_STEPS.reduce(
          (m, s) => m + run.result.steps[s].errors + run.result.steps[s].timeouts,
          0,
        ),
      0,
    );
    const lostAfterReplay = runs.reduce(
      (n, run) => n + run.recovered.filter((x) => x.http !== 200).length,
      0,
    );
    const other4xx: Record<string, number> = {};
    for (const run of runs) {
      for (const name of FLOW_STEPS) {
        for (const [code, n] of Object.entries(run.result.steps[name].statusCounts)) {
          if (Number(code) >= 300 && Number(code) < 500) {
            other4xx[`${name} ${code}`] = (other4xx[`${name} ${code}`] ?? 0) + n;
          }
        }
      }
    }
    const notCompleted = runs.reduce((n, run) => n + run.result.completeNotCompleted, 0);
    const interleaveExpected = ctx.opts.flowAgents > ctx.world.buyers.length;
    const statuses = Object.fromEntries(byStatus.map((row) => [row.status, Number(row.n)]));

    const checks: Check[] = [
      check(
        'no 5xx on any step (warm-up and replays included)',
        fivexx.total === 0,
        fivexx.total === 0 ? 'none' : `${fivexx.total}: ${JSON.stringify(fivexx.byStep)}`,
      ),
      check(
        'no connection errors or timeouts',
        transport === 0,
        `${transport} (lost completes replayed: ${lostAfterReplay} still not 200)`,
      ),
      check(
        'no 3xx/4xx, every complete 200 is completed',
        Object.keys(other4xx).length === 0 && notCompleted === 0,
        `${JSON.stringify(other4xx)}; ${notCompleted} completes answered 200 without completed`,
      ),
      check(
        'flows completed',
        r.flowsCompleted > 0,
        `${r.flowsCompleted} measured, ${answered} in all`,
      ),
      check(
        'calls of different agents for one buyer interleaved',
        !interleaveExpected || r.interleaved > 0,
        interleaveExpected
          ? `${r.interleaved} calls overlapped another step of their buyer`
          : `not expected: ${ctx.opts.flowAgents} agents for ${ctx.world.buyers.length} buyers`,
      ),
      check(
        'settled intents = completed responses (+ lost completes, recovered by replay)',
        settled === answered,
        `${settled} settled; ${answered} answered completed; intents by status ${JSON.stringify(statuses)}`,
      ),
      check(
        'every completed session has a settled intent with a receipt',
        unpaidCompleted === 0 && sessionsCompleted === settled,
        `${sessionsCompleted} completed sessions, ${unpaidCompleted} without settled intent + receipt`,
      ),
      check(
        'one debit rail_transfer per settled intent, no intent debited twice',
        badDebits === 0 && debits === settled,
        `${debits} debits for ${settled} settled; ${badDebits} intents off`,
      ),
      check(
        'one intent.settled outbox event per settled intent',
        badOutbox === 0 && outboxEvents === settled,
        `${outboxEvents} events for ${settled} settled; ${badOutbox} intents off`,
      ),
      await verifyReceipts(ctx, sample),
    ];

    const calls = FLOW_STEPS.reduce((n, s) => n + r.steps[s].requests, 0);
    const allStatuses: Record<string, number> = {};
    for (const name of FLOW_STEPS) {
      for (const [code, n] of Object.entries(r.steps[name].statusCounts)) {
        allStatuses[code] = (allStatuses[code] ?? 0) + n;
      }
    }
    const stepTransport = (s: (typeof FLOW_STEPS)[number]) => r.steps[s].errors;
    // The table row counts flows: req/s = flows/s over the window, latency = one whole flow.
    const row: LoadResult = {
      name: r.name,
      elapsedS: r.durationS,
      responses: r.flowsCompletedInWindow,
      statusCounts: allStatuses,
      non2xx: Object.entries(allStatuses)
        .filter(([code]) => !code.startsWith('2'))
        .reduce((n, [, c]) => n + c, 0),
      errors: FLOW_STEPS.reduce((n, s) => n + stepTransport(s), 0),
      timeouts: FLOW_STEPS.reduce((n, s) => n + r.steps[s].timeouts, 0),
      latencyMs: r.flowLatencyMs,
      replayed: 0,
      bodies: [],
      poolUsed: 0,
      unanswered: [],
    };
    const p = (s: (typeof FLOW_STEPS)[number]) => r.steps[s].latencyMs;
    return {
      ...outcome(this, row, checks, {
        flows_per_s: rate(r.flowsCompletedInWindow, r.durationS),
        completed: r.flowsCompleted,
        calls,
        http_5xx: fivexx.total,
        agents: ctx.opts.flowAgents,
        buyers: ctx.world.buyers.length,
        create_p50_p99_ms: `${p('create').p50}/${p('create').p99}`,
        delegate_p50_p99_ms: `${p('delegate_payment').p50}/${p('delegate_payment').p99}`,
        complete_p50_p99_ms: `${p('complete').p50}/${p('complete').p99}`,
      }),
      lines: [
        ...flowLines(r, warm?.result ?? null),
        `  Postgres deadlocks detected in payments_bench during the scenario (warm-up included): ${deadlocksSeen}`,
      ],
      json: {
        flow: {
          duration_s: r.durationS,
          elapsed_s: r.elapsedS,
          flows_started: r.flowsStarted,
          flows_completed: r.flowsCompleted,
          flows_completed_in_window: r.flowsCompletedInWindow,
          flow_latency_ms: r.flowLatencyMs,
          steps: r.steps,
          server_errors: fivexx.byStep,
          failure_samples: r.failureSamples,
          interleaved_calls: r.interleaved,
          max_in_flight_per_buyer: r.maxInFlightPerBuyer,
          warmup: warm
            ? { flows_completed: warm.result.flowsCompleted, steps: warm.result.steps }
            : null,
          intents_by_status: statuses,
          postgres_deadlocks: deadlocksSeen,
        },
      },
    };
  },
};

export const SCENARIOS: Scenario[] = [
  health,
  create,
  get,
  replay,
  replayShared,
  complete,
  sellers,
  fullFlow,
];

/** After every scenario: nothing was debited twice, and every settled payment was answered to a client. */
export async function finalChecks(
  ctx: BenchContext,
  outcomes: ScenarioOutcome[],
): Promise<Check[]> {
  const { rows: dup } = await ctx.db.query<{ intent_id: string }>(
    'SELECT intent_id, count(*) AS n FROM rail_transfers GROUP BY intent_id HAVING count(*) > 1',
  );
  const settled = await count(
    ctx.db,
    `SELECT count(*) AS n FROM payment_intents WHERE status = 'settled'`,
  );
  // Completed responses of the measured phases (complete scenario and full flow).
  const measured = outcomes
    .filter((o) => o.id === '5' || o.id === '7')
    .reduce((n, o) => n + Number(o.extra.completed ?? 0), 0);
  const answered = measured + ctx.completedUnmeasured;
  return [
    check(
      'no duplicate debits (rail_transfers grouped by intent_id)',
      dup.length === 0,
      dup.length === 0 ? 'none' : `${dup.length} intents debited twice`,
    ),
    check(
      'settled intents in the database = completed responses',
      settled === answered,
      `${settled} settled; ${measured} measured + ${ctx.completedUnmeasured} warm-up/recovered`,
    ),
  ];
}
