import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { JSONWebKeySet } from 'jose';
import { Client } from 'pg';

import type { ChainEntryJson } from '../src/chains/chain-entry';
import { verifyChain } from '../src/chains/verify-chain';
import { BenchChild } from './children';
import { API_VERSION, Http, mapLimit } from './http';
import type { LoadGenerator } from './load-client';
import type { FlowJob, FlowResult, LoadJob, LoadResult } from './protocol';
import { FLOW_STEPS } from './protocol';
import type { RssSampler } from './rss';
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
import { BASELINE_TABLE, BenchOptions } from './setup';
import { summarise } from './stats';

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
  /** The scenario sampled RSS itself (the soak); the runner leaves its own samples out. */
  rssSampled?: boolean;
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
  /** The bare baseline route's app (bench/baseline.ts). */
  baselineUrl: string;
  /** Whether the app runs its LISTEN connection (PG_LISTEN): the webhook scenario says which wake-up it measured. */
  pgListen: boolean;
  /** Samples app RSS while each scenario runs. */
  rss: RssSampler;
  /** The second app process while scenario 9 runs (its RSS is sampled too). */
  instance2?: BenchChild;
  /** Set by the complete scenario (5): max completes/s, which sizes the fixed-rate scenarios. */
  completeRps?: number;
  /** Set by scenario 7: medians of the interleaved rounds. */
  baselineRps?: number;
  flowRps?: number;
}

export interface Scenario {
  id: string;
  title: string;
  measures: string;
  run(ctx: BenchContext): Promise<ScenarioOutcome | ScenarioOutcome[]>;
}

export function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail };
}

export async function count(db: Client, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: string }>(sql, params);
  return Number(rows[0].n);
}

export function rate(n: number, seconds: number): number {
  return seconds > 0 ? Math.round((n / seconds) * 10) / 10 : 0;
}

/** Every response had the expected status and the transport never failed. */
export function transportChecks(r: LoadResult, expected: number): Check[] {
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
      // The credential it was sent with: an Idempotency-Key is scoped to its principal.
      const bearer = /^Bearer (.+)$/.exec(req.headers?.Authorization ?? '')?.[1];
      const res = await ctx.http.request<{ id?: string; status?: string }>('POST', req.path, {
        bearer: bearer ?? ctx.world.merchantKey,
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

    ctx.completeRps = rate(completed, result.elapsedS);
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
export interface FlowRun {
  result: FlowResult;
  recovered: Recovered[];
  /** What Postgres counted for the bench database during the run (all instances, background work included). */
  db: DbWork;
}

interface DbWork {
  xacts: number;
  rowsWritten: number;
  rowsRead: number;
  /** Blocks Postgres had to read from outside shared_buffers (OS cache or disk). */
  blocksRead: number;
}

/**
 * Postgres's counters for this database (pg_stat_database): transactions, rows written (inserted
 * + updated + deleted) and rows read. Per completed flow they are a cost measure that the other
 * load on the machine does not move. Backends report at most once a second, hence the wait.
 */
async function dbWork(ctx: BenchContext): Promise<DbWork> {
  await new Promise((r) => setTimeout(r, 1100));
  const { rows } = await ctx.db.query<{ x: string; w: string; r: string; b: string }>(
    `SELECT (xact_commit + xact_rollback)::text AS x, (tup_inserted + tup_updated + tup_deleted)::text AS w,
            (tup_returned + tup_fetched)::text AS r, blks_read::text AS b
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  return {
    xacts: Number(rows[0].x),
    rowsWritten: Number(rows[0].w),
    rowsRead: Number(rows[0].r),
    blocksRead: Number(rows[0].b),
  };
}

function workSince(before: DbWork, after: DbWork): DbWork {
  return {
    xacts: after.xacts - before.xacts,
    rowsWritten: after.rowsWritten - before.rowsWritten,
    rowsRead: after.rowsRead - before.rowsRead,
    blocksRead: after.blocksRead - before.blocksRead,
  };
}

function perFlow(work: DbWork, flows: number): DbWork {
  const per = (n: number) => (flows > 0 ? Math.round((n / flows) * 10) / 10 : 0);
  return {
    xacts: per(work.xacts),
    rowsWritten: per(work.rowsWritten),
    rowsRead: per(work.rowsRead),
    blocksRead: per(work.blocksRead),
  };
}

/**
 * The full flow for durationS: ctx.opts.flowAgents closed-loop agents, or with `flowsPerS` flows
 * arriving at that uniform rate (open loop, flow-agents.ts). `baseUrls`: several instances.
 */
export async function flowRun(
  ctx: BenchContext,
  name: string,
  durationS: number,
  baseUrls?: string[],
  flowsPerS?: number,
): Promise<FlowRun> {
  const spec: FlowJob = {
    kind: 'flow',
    name,
    baseUrl: ctx.baseUrl,
    baseUrls,
    durationS,
    agents: ctx.opts.flowAgents,
    merchantKey: ctx.world.merchantKey,
    merchantKeys: ctx.world.merchantKeys,
    sellerId: ctx.world.seller.id,
    buyers: ctx.world.buyers.map(({ id, buyerKey, mandateId }) => ({ id, buyerKey, mandateId })),
    createBody: CREATE_BODY,
    amountPaise: TEA.unit_paise,
    keyPrefix: newKey(`bench-${name}`),
    timeoutS: 10,
    flowsPerS,
  };
  const before = await dbWork(ctx);
  const result = await ctx.load.runFlow(spec);
  const after = await dbWork(ctx);
  const recovered = await recover(ctx, { unanswered: result.unansweredCompletes });
  return {
    result,
    recovered,
    db: workSince(before, after),
  };
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

/** Postgres's own count of deadlocks it broke in this database (informational: the service retries them). */
export function deadlocks(ctx: BenchContext): Promise<number> {
  return count(
    ctx.db,
    'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()',
  );
}

function completedOf(bodies: Recovered[]): number {
  return bodies.filter((b) => b.http === 200 && b.status === 'completed').length;
}

/**
 * What the full-flow scenarios report and check: `runs` are every run whose sessions are checked
 * (warm-up included), `measured` the one whose figures fill the row and the per-step table. Any
 * 5xx, 3xx/4xx, lost answer or broken invariant (double debit, receipt or event missing) fails.
 */
export async function flowOutcome(
  ctx: BenchContext,
  s: Scenario,
  runs: FlowRun[],
  measured: FlowRun,
  warm: FlowRun | null,
  deadlocksSeen: number,
): Promise<ScenarioOutcome> {
  const r = measured.result;
  const answered = runs.reduce(
    (n, run) => n + run.result.flowsCompleted + completedOf(run.recovered),
    0,
  );
  // The row's `completed` counts the measured run's answers; everything else is accounted here.
  ctx.completedUnmeasured += answered - r.flowsCompleted;
  const sessionIds = runs.flatMap((run) => run.result.sessionIds);

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
  const transport = runs.reduce(
    (n, run) =>
      n +
      FLOW_STEPS.reduce(
        (m, st) => m + run.result.steps[st].errors + run.result.steps[st].timeouts,
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

  const calls = FLOW_STEPS.reduce((n, st) => n + r.steps[st].requests, 0);
  const allStatuses: Record<string, number> = {};
  for (const name of FLOW_STEPS) {
    for (const [code, n] of Object.entries(r.steps[name].statusCounts)) {
      allStatuses[code] = (allStatuses[code] ?? 0) + n;
    }
  }
  // The table row counts flows: req/s = flows/s over the window, latency = one whole flow.
  const row: LoadResult = {
    name: r.name,
    elapsedS: r.durationS,
    responses: r.flowsCompletedInWindow,
    statusCounts: allStatuses,
    non2xx: Object.entries(allStatuses)
      .filter(([code]) => !code.startsWith('2'))
      .reduce((n, [, c]) => n + c, 0),
    errors: FLOW_STEPS.reduce((n, st) => n + r.steps[st].errors, 0),
    timeouts: FLOW_STEPS.reduce((n, st) => n + r.steps[st].timeouts, 0),
    latencyMs: r.flowLatencyMs,
    replayed: 0,
    bodies: [],
    poolUsed: 0,
    unanswered: [],
  };
  const p = (st: (typeof FLOW_STEPS)[number]) => r.steps[st].latencyMs;
  const cost = perFlow(measured.db, r.flowsCompleted);
  return {
    ...outcome(s, row, checks, {
      pg_xacts_per_flow: cost.xacts,
      pg_rows_written_per_flow: cost.rowsWritten,
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
      `  Postgres work per completed flow (this database, background work included): ${cost.xacts} transactions, ${cost.rowsWritten} rows written, ${cost.rowsRead} rows read`,
      `  Postgres deadlocks detected in ${new URL(ctx.opts.databaseUrl).pathname.slice(1)} during the scenario (warm-up included): ${deadlocksSeen}`,
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
}

export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Index of the median element (the lower one for an even count). */
export function medianIndex(xs: number[]): number {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  return order[Math.floor((order.length - 1) / 2)][1];
}

export function ratio(a: number, b: number): number {
  return b > 0 ? Math.round((a / b) * 10) / 10 : 0;
}

const fullFlow: Scenario = {
  id: '7',
  title: 'full flow: create → delegate → complete',
  measures:
    'BENCH_FLOW_AGENTS virtual agents over the buyers, each looping create session → delegate_payment (buyer key, standing mandate) → complete with fresh Idempotency-Keys, ₹450 (no approval); calls for one buyer interleave; any 5xx fails. Interleaved with the baseline (scenario 0) over BENCH_ROUNDS rounds; the row is the median round: flows/s and latency per flow',
  async run(ctx) {
    const deadlocksBefore = await deadlocks(ctx);
    const baselineJob = (name: string, durationS: number): LoadJob => ({
      name,
      baseUrl: ctx.baselineUrl,
      durationS,
      connections: ctx.opts.connections,
      method: 'POST',
      path: '/baseline',
      headers: {},
    });
    const rowsBefore = await count(ctx.db, `SELECT count(*) AS n FROM ${BASELINE_TABLE}`);
    const baselines: LoadResult[] = [];
    let warm: FlowRun | null = null;
    if (ctx.opts.warmupS > 0) {
      baselines.push(await ctx.load.run(baselineJob('baseline-warmup', ctx.opts.warmupS)));
      warm = await flowRun(ctx, 'flow-warmup', ctx.opts.warmupS);
    }
    const rounds: { baseline: LoadResult; flow: FlowRun }[] = [];
    for (let i = 1; i <= ctx.opts.rounds; i++) {
      const baseline = await ctx.load.run(baselineJob(`baseline-r${i}`, ctx.opts.durationS));
      baselines.push(baseline);
      rounds.push({ baseline, flow: await flowRun(ctx, `flow-r${i}`, ctx.opts.flowDurationS) });
    }
    const perRound = rounds.map(({ baseline, flow }, i) => {
      const baselineRps = rate(baseline.responses, baseline.elapsedS);
      const flowsPerS = rate(flow.result.flowsCompletedInWindow, flow.result.durationS);
      const c = flow.result.steps.complete.latencyMs;
      return {
        round: i + 1,
        baseline_rps: baselineRps,
        flows_per_s: flowsPerS,
        ratio: ratio(baselineRps, flowsPerS),
        complete_p50_ms: c.p50,
        complete_p99_ms: c.p99,
      };
    });
    const baselineMedian = median(perRound.map((x) => x.baseline_rps));
    const flowsMedian = median(perRound.map((x) => x.flows_per_s));
    const ratioMedian = median(perRound.map((x) => x.ratio));
    ctx.baselineRps = baselineMedian;
    ctx.flowRps = flowsMedian;

    const runs = [...(warm ? [warm] : []), ...rounds.map((x) => x.flow)];
    const mid = medianIndex(perRound.map((x) => x.flows_per_s));
    const flowO = await flowOutcome(
      ctx,
      this,
      runs,
      rounds[mid].flow,
      warm,
      (await deadlocks(ctx)) - deadlocksBefore,
    );
    Object.assign(flowO.extra, {
      rounds: ctx.opts.rounds,
      flows_per_s_median: flowsMedian,
      baseline_rps_median: baselineMedian,
      baseline_per_flow: ratioMedian,
    });
    flowO.lines = [
      ...(flowO.lines ?? []),
      `  rounds (baseline, then flow): ${perRound
        .map(
          (x) =>
            `#${x.round} ${x.baseline_rps} req/s ÷ ${x.flows_per_s} flows/s = ${x.ratio} (complete p50/p99 ${x.complete_p50_ms}/${x.complete_p99_ms} ms)`,
        )
        .join('; ')}`,
      `  median: baseline ${baselineMedian} req/s, ${flowsMedian} flows/s; one flow costs ${ratioMedian} baseline requests (median of the rounds' ratios)`,
    ];
    flowO.json = { ...flowO.json, rounds: perRound };

    // The baseline's own row: the median round, every response 201, a row per 201.
    const inserted =
      (await count(ctx.db, `SELECT count(*) AS n FROM ${BASELINE_TABLE}`)) - rowsBefore;
    const ok201 = baselines.reduce((n, b) => n + (b.statusCounts['201'] ?? 0), 0);
    const inFlightMax = baselines.length * ctx.opts.connections;
    const baseMid = rounds[medianIndex(perRound.map((x) => x.baseline_rps))].baseline;
    const baselineO = outcome(
      baseline,
      baseMid,
      [
        ...baselines.flatMap((b) => transportChecks(b, 201).filter((c) => !c.ok || b === baseMid)),
        check(
          'one row inserted per 201 (+ requests in flight when a run stopped)',
          inserted >= ok201 && inserted <= ok201 + inFlightMax,
          `${inserted} rows for ${ok201} × 201 over ${baselines.length} runs`,
        ),
      ],
      { baseline_rps_median: baselineMedian, rounds: ctx.opts.rounds },
    );
    return [baselineO, flowO];
  },
};

/** Documented here (its row comes from scenario 7, which interleaves the two). */
const baseline: Scenario = {
  id: '0',
  title: 'baseline: bare route, 1 INSERT in a tx',
  measures:
    'the yardstick: a minimal Nest app in the bench process (no middleware, guards or rate limiter) doing BEGIN; INSERT; COMMIT through the app pool; run before each full-flow round',
  run: () => Promise.reject(new Error('runs inside scenario 7')),
};

interface FixedRateRun {
  /** Postgres's counters over the measured phase, per completed payment. */
  perComplete: DbWork;
  result: LoadResult;
  recovered: Recovered[];
  sessionIds: string[];
  completed: number;
  recoveredCompleted: number;
  mintS: number;
  checks: Check[];
}

/**
 * Completes at a fixed arrival rate (open loop: autocannon overallRate) over pre-minted session +
 * token pairs, after an unmeasured warm-up at the same rate; checks the payments it made.
 */
async function fixedRateCompletes(
  ctx: BenchContext,
  name: string,
  perS: number,
  durationS: number,
  connections = Math.max(ctx.opts.connections, 40),
): Promise<FixedRateRun> {
  const n = Math.ceil(perS * durationS * 1.05) + 5;
  const warmN = Math.ceil(perS * ctx.opts.warmupS);
  const started = Date.now();
  const pairs = await mintPairs(ctx.http, ctx.world, n + warmN, 8);
  const mintS = (Date.now() - started) / 1000;
  const spec = (jobName: string, items: typeof pairs, seconds: number): LoadJob => ({
    name: jobName,
    baseUrl: ctx.baseUrl,
    durationS: seconds,
    connections,
    method: 'POST',
    path: '/acp/checkout_sessions/unused/complete',
    headers: merchantHeaders(ctx.world, true),
    idempotency: { mode: 'unique', prefix: newKey(`bench-${jobName}`) },
    pool: items.map(completeItem),
    collectBodies: true,
    overallRate: perS,
  });
  if (warmN > 0) {
    const w = await ctx.load.run(spec(`${name}-warmup`, pairs.slice(n), ctx.opts.warmupS));
    const wr = await recover(ctx, w);
    ctx.completedUnmeasured += completedOf(w.bodies) + completedOf(wr);
  }
  const measured = pairs.slice(0, n);
  const workBefore = await dbWork(ctx);
  const result = await ctx.load.run(spec(name, measured, durationS));
  const work = workSince(workBefore, await dbWork(ctx));
  const recovered = await recover(ctx, result);
  const completed = completedOf(result.bodies);
  const recoveredCompleted = completedOf(recovered);
  ctx.completedUnmeasured += recoveredCompleted;
  const sessionIds = measured.map((x) => x.sessionId);
  const settled = await count(
    ctx.db,
    `SELECT count(*) AS n FROM payment_intents WHERE source_kind = 'checkout' AND source_id = ANY($1) AND status = 'settled'`,
    [sessionIds],
  );
  // One join (a correlated count per intent would scan rail_transfers once per intent).
  const badDebits = await count(
    ctx.db,
    `SELECT count(*) AS n FROM (
       SELECT i.id, i.status, count(t.id) AS d
         FROM payment_intents i LEFT JOIN rail_transfers t ON t.intent_id = i.id AND t.direction = 'debit'
        WHERE i.source_kind = 'checkout' AND i.source_id = ANY($1)
        GROUP BY i.id, i.status) x
      WHERE x.d <> CASE WHEN x.status = 'settled' THEN 1 ELSE 0 END`,
    [sessionIds],
  );
  const noReceipt = await count(
    ctx.db,
    `SELECT count(*) AS n FROM payment_intents i WHERE i.source_kind = 'checkout' AND i.source_id = ANY($1)
        AND i.status = 'settled' AND NOT EXISTS (SELECT 1 FROM chain_entries c WHERE c.chain_id = i.receipt_id AND c.seq = 1)`,
    [sessionIds],
  );
  const ok200 = result.statusCounts['200'] ?? 0;
  return {
    perComplete: perFlow(work, completed),
    result,
    recovered,
    sessionIds,
    completed,
    recoveredCompleted,
    mintS,
    checks: [
      ...transportChecks(result, 200),
      check('every 200 is status completed', completed === ok200, `${completed} of ${ok200}`),
      check(
        'settled intents = completed responses (+ in-flight at the end, recovered by replay)',
        settled === completed + recoveredCompleted && recoveredCompleted === recovered.length,
        `${settled} settled; ${completed} completed + ${recoveredCompleted}/${recovered.length} recovered`,
      ),
      check(
        'one debit per settled intent, none on any other, a receipt each',
        badDebits === 0 && noReceipt === 0,
        `${badDebits} intents with a wrong debit count, ${noReceipt} settled without receipt`,
      ),
    ],
  };
}

function fixedRateExtra(
  r: FixedRateRun,
  perS: number,
): {
  target_per_s: number;
  achieved_per_s: number;
  held_rate: string;
  completed: number;
  complete_p50_p99_ms: string;
} {
  const achieved = rate(r.result.responses, r.result.elapsedS);
  return {
    target_per_s: perS,
    achieved_per_s: achieved,
    held_rate: achieved >= perS * 0.95 ? 'yes' : 'no',
    completed: r.completed,
    complete_p50_p99_ms: `${r.result.latencyMs.p50}/${r.result.latencyMs.p99}`,
  };
}

/** Item 7: latency at half of what the machine can do. */
const completeHalf: Scenario = {
  id: '5h',
  title: 'POST …/complete at half of max',
  measures:
    'complete (as in 5) at a fixed rate of half the completes/s scenario 5 measured (50/s without it), open loop: latency when the machine is not saturated. Goal: p99 ≤ 50 ms',
  async run(ctx) {
    const perS = ctx.completeRps ? Math.max(1, Math.round(ctx.completeRps / 2)) : 50;
    const r = await fixedRateCompletes(ctx, 'complete-half', perS, ctx.opts.durationS);
    return outcome(this, r.result, r.checks, fixedRateExtra(r, perS));
  },
};

interface Arrival {
  id: string;
  type: string;
  intentId: string | null;
  createdAt: number;
  at: number;
}

const webhookLatency: Scenario = {
  id: '8',
  title: 'settle → webhook received',
  measures:
    'completes at a fixed rate (BENCH_WEBHOOK_RATE; default 100/s, or half of 5’s max when lower) while the seller has a webhook endpoint on a local receiver (another process): intent.settled goes outbox → NOTIFY on commit → dispatcher → Bull → signed POST. Latency = arrival − the event’s created_at. Row: completes. Goal: p99 ≤ 100 ms at 100 settlements/s',
  async run(ctx) {
    const receiver = await BenchChild.start('receiver.ts');
    const take = async () =>
      (await receiver.request<{ type: string; arrivals: Arrival[] }>('take')).arrivals;
    try {
      const url = `http://127.0.0.1:${String(receiver.ready.port)}/hooks`;
      const endpoint = await ctx.http.expect<{ id: string }>(
        201,
        'POST',
        '/v1/webhooks/endpoints',
        {
          bearer: ctx.world.apiKey,
          body: { url, event_types: ['intent.settled'], agent_id: ctx.world.seller.id },
        },
      );
      const half = ctx.completeRps ? Math.max(1, Math.round(ctx.completeRps / 2)) : null;
      const perS = ctx.opts.webhookRate ?? Math.min(100, half ?? 100);
      const rateWhy = ctx.opts.webhookRate
        ? 'BENCH_WEBHOOK_RATE'
        : half !== null && half < 100
          ? `half of scenario 5's ${ctx.completeRps} completes/s: the most this machine holds with headroom`
          : 'the goal rate';
      const r = await fixedRateCompletes(ctx, 'webhook', perS, ctx.opts.durationS);
      const { rows: settled } = await ctx.db.query<{ id: string }>(
        `SELECT i.id FROM payment_intents i JOIN outbox_events o ON o.subject_id = i.id AND o.type = 'intent.settled'
          WHERE o.created_at >= (SELECT created_at FROM webhook_endpoints WHERE id = $1)`,
        [endpoint.id],
      );
      // When the client had the complete's answer, per intent (the answer names the session).
      const answeredAt = new Map(
        r.result.bodies.flatMap((x) => (x.id && x.status === 'completed' ? [[x.id, x.at]] : [])),
      );
      const { rows: measuredRows } = await ctx.db.query<{ id: string; source_id: string }>(
        `SELECT id, source_id FROM payment_intents WHERE source_kind = 'checkout' AND source_id = ANY($1) AND status = 'settled'`,
        [r.sessionIds],
      );
      const measuredIntents = new Set(measuredRows.map((x) => x.id));
      const answerOf = new Map(
        measuredRows.flatMap((x) =>
          answeredAt.has(x.source_id) ? [[x.id, answeredAt.get(x.source_id)!]] : [],
        ),
      );
      const arrivals: Arrival[] = [];
      const drainStarted = Date.now();
      const expected = new Set(settled.map((x) => x.id));
      const seen = () => new Set(arrivals.map((a) => a.intentId));
      while (Date.now() - drainStarted < 60_000) {
        arrivals.push(...(await take()));
        if ([...expected].every((id) => seen().has(id))) {
          break;
        }
        await new Promise((res) => setTimeout(res, 200));
      }
      await new Promise((res) => setTimeout(res, 500)); // a duplicate would arrive now
      arrivals.push(...(await take()));
      await ctx.http.expect(200, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/disable`, {
        bearer: ctx.world.apiKey,
      });

      const perEvent = new Map<string, number>();
      for (const a of arrivals) {
        perEvent.set(a.id, (perEvent.get(a.id) ?? 0) + 1);
      }
      const duplicates = [...perEvent.values()].filter((n) => n > 1).length;
      const missing = [...expected].filter((id) => !seen().has(id)).length;
      const latencies = arrivals
        .filter((a) => a.intentId !== null && measuredIntents.has(a.intentId))
        .map((a) => a.at - a.createdAt);
      const lat = summarise(latencies);
      const afterAnswer = summarise(
        arrivals
          .filter((a) => a.intentId !== null && answerOf.has(a.intentId))
          .map((a) => a.at - answerOf.get(a.intentId!)!),
      );
      const extra = {
        ...fixedRateExtra(r, perS),
        rate_chosen_by: rateWhy,
        wake: ctx.pgListen ? 'NOTIFY on commit (+1 s poll)' : 'poll only (PG_LISTEN=false)',
        delivered: arrivals.length,
        settle_to_received_p50_ms: lat.p50,
        settle_to_received_p95_ms: lat.p95,
        settle_to_received_p99_ms: lat.p99,
        settle_to_received_max_ms: lat.max,
        answer_to_received_p50_ms: afterAnswer.p50,
        answer_to_received_p99_ms: afterAnswer.p99,
      };
      return {
        ...outcome(
          this,
          r.result,
          [
            ...r.checks,
            check(
              'every intent.settled since the endpoint was registered arrived, exactly once',
              missing === 0 && duplicates === 0 && expected.size > 0,
              `${expected.size} settled, ${missing} missing, ${duplicates} events received twice`,
            ),
          ],
          extra,
        ),
        lines: [
          `  settle → received (${latencies.length} measured events; from the event's created_at, stamped inside the settling transaction): p50 ${lat.p50} ms, p95 ${lat.p95} ms, p99 ${lat.p99} ms, max ${lat.max} ms`,
          `  complete answered → received (negative: the webhook came first): p50 ${afterAnswer.p50} ms, p99 ${afterAnswer.p99} ms`,
          `  target ${perS}/s (${rateWhy}), achieved ${extra.achieved_per_s}/s (held: ${extra.held_rate}); ${extra.wake}`,
        ],
        json: { settle_to_received_ms: lat, answer_to_received_ms: afterAnswer },
      };
    } finally {
      await receiver.stop();
    }
  },
};

const twoInstances: Scenario = {
  id: '9',
  title: 'full flow on two instances',
  measures:
    'as 7, with a second app process on the same database and Redis (queue prefix bench): each request of the virtual agents goes to the next instance in turn (round robin), so one flow usually crosses both. Compared with 7’s median',
  async run(ctx) {
    const child = await BenchChild.start('instance.ts', 120_000);
    ctx.instance2 = child;
    try {
      const urls = [ctx.baseUrl, String(child.ready.url)];
      const before = await deadlocks(ctx);
      const warm =
        ctx.opts.warmupS > 0 ? await flowRun(ctx, 'two-warmup', ctx.opts.warmupS, urls) : null;
      const measured = await flowRun(ctx, 'two', ctx.opts.flowDurationS, urls);
      const o = await flowOutcome(
        ctx,
        this,
        warm ? [warm, measured] : [measured],
        measured,
        warm,
        (await deadlocks(ctx)) - before,
      );
      const two = Number(o.extra.flows_per_s);
      Object.assign(o.extra, {
        instances: 2,
        one_instance_flows_per_s: ctx.flowRps ?? '-',
        two_over_one: ctx.flowRps ? ratio(two, ctx.flowRps) : '-',
      });
      return o;
    } finally {
      ctx.instance2 = undefined;
      await child.stop();
    }
  },
};

/** Heap in use after a full garbage collection (gc exposed at run time, for the soak only). */
function heapAfterGcMb(): number {
  setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
}

const soak: Scenario = {
  id: '10',
  title: 'soak: full flow, sustained',
  measures:
    'BENCH_SOAK_S seconds of scenario 7’s load on one instance; RSS sampled every 500 ms, heap after a full GC before and after. Goal: RSS ≤ 300 MB, no growth',
  async run(ctx) {
    const before = await deadlocks(ctx);
    const warm = await flowRun(ctx, 'soak-warmup', Math.max(ctx.opts.warmupS, 5));
    const heapBefore = heapAfterGcMb();
    ctx.rss.start();
    const measured = await flowRun(ctx, 'soak', ctx.opts.soakS);
    const rss = ctx.rss.stop();
    const heapAfter = heapAfterGcMb();
    const series = rss.series.app ?? [];
    const minuteAvg = (from: number, to: number) => {
      const pts = series.filter(([t]) => t >= from && t < to).map(([, mb]) => mb);
      return pts.length ? Math.round(pts.reduce((a, b) => a + b, 0) / pts.length) : 0;
    };
    const firstMin = minuteAvg(0, 60);
    const lastMin = minuteAvg(ctx.opts.soakS - 60, ctx.opts.soakS + 1);
    const o = await flowOutcome(
      ctx,
      this,
      [warm, measured],
      measured,
      warm,
      (await deadlocks(ctx)) - before,
    );
    Object.assign(o.extra, {
      soak_s: ctx.opts.soakS,
      rss_first_minute_avg_mb: firstMin,
      rss_last_minute_avg_mb: lastMin,
      rss_max_mb: rss.max.app ?? 0,
      heap_after_gc_before_mb: heapBefore,
      heap_after_gc_after_mb: heapAfter,
    });
    o.lines = [
      ...(o.lines ?? []),
      `  RSS: first minute avg ${firstMin} MB, last minute avg ${lastMin} MB, max ${rss.max.app} MB; heap after full GC ${heapBefore} MB before → ${heapAfter} MB after`,
    ];
    o.json = { ...o.json, rss_series_mb: series };
    o.rssSampled = true;
    return o;
  },
};

/**
 * Item 7: does the complete slow down as tables grow? Complete p50 at a fixed rate now, then
 * after bulk-inserting synthetic history (settled intents, their sessions, debits, events and
 * audit rows, spread over the past 90 days and the bench buyers) up to BENCH_SEED_INTENTS.
 */
const bigTables: Scenario = {
  id: '11',
  title: 'complete p50 at BENCH_SEED_INTENTS stored',
  measures:
    'complete at a fixed rate (half of 5’s max) with the intents the run made so far, then again after seeding synthetic history up to BENCH_SEED_INTENTS intents (+ sessions, debits, events, audit rows) and ANALYZE. Goal: p50 ratio ≤ 1.2',
  async run(ctx) {
    const perS = ctx.completeRps ? Math.max(1, Math.round(ctx.completeRps / 2)) : 50;
    const intents = () => count(ctx.db, 'SELECT count(*) AS n FROM payment_intents');
    const smallN = await intents();
    const small = await fixedRateCompletes(ctx, 'small-tables', perS, ctx.opts.durationS);
    const seedStarted = Date.now();
    const seeded = await seedHistory(ctx, ctx.opts.seedIntents - (await intents()));
    const seedS = Math.round((Date.now() - seedStarted) / 100) / 10;
    const bigN = await intents();
    const big = await fixedRateCompletes(ctx, 'big-tables', perS, ctx.opts.durationS);
    const p50Ratio =
      small.result.latencyMs.p50 > 0
        ? Math.round((big.result.latencyMs.p50 / small.result.latencyMs.p50) * 100) / 100
        : 0;
    const o = outcome(this, big.result, [...small.checks, ...big.checks], {
      ...fixedRateExtra(big, perS),
      completed: small.completed + big.completed,
      intents_small: smallN,
      intents_big: bigN,
      seeded,
      seed_s: seedS,
      p50_small_ms: small.result.latencyMs.p50,
      p50_big_ms: big.result.latencyMs.p50,
      p99_small_ms: small.result.latencyMs.p99,
      p99_big_ms: big.result.latencyMs.p99,
      p50_ratio: p50Ratio,
      rows_read_per_complete_small: small.perComplete.rowsRead,
      rows_read_per_complete_big: big.perComplete.rowsRead,
      blocks_read_per_complete_small: small.perComplete.blocksRead,
      blocks_read_per_complete_big: big.perComplete.blocksRead,
    });
    o.lines = [
      `  complete at ${perS}/s: ${smallN} intents stored → p50/p99 ${small.result.latencyMs.p50}/${small.result.latencyMs.p99} ms; ${bigN} stored (seeded ${seeded} in ${seedS} s) → p50/p99 ${big.result.latencyMs.p50}/${big.result.latencyMs.p99} ms; p50 ratio ${p50Ratio}`,
      `  Postgres per complete: rows read ${small.perComplete.rowsRead} → ${big.perComplete.rowsRead}, blocks read from outside shared_buffers ${small.perComplete.blocksRead} → ${big.perComplete.blocksRead}, transactions ${small.perComplete.xacts} → ${big.perComplete.xacts}`,
    ];
    return o;
  },
};

/** Marks what the 1M-intents mode inserted, so the final checks leave it out. */
export const SEED_DESCRIPTION = 'bench seed';

async function seedHistory(ctx: BenchContext, n: number): Promise<number> {
  if (n <= 0) {
    return 0;
  }
  const { rows } = await ctx.db.query<{ pkey: string }>(
    `SELECT id AS pkey FROM protocol_keys WHERE agent_id = $1 AND role = 'merchant' AND revoked_at IS NULL LIMIT 1`,
    [ctx.world.seller.id],
  );
  const ws = ctx.world.workspaceId;
  const seller = ctx.world.seller.id;
  const buyers = ctx.world.buyers.map((b) => b.id);
  const mandates = ctx.world.buyers.map((b) => b.mandateId);
  const chunk = 100_000;
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk) - 1;
    const series = `generate_series(${from}, ${to}) AS g`;
    const at = `now() - (g % 90) * interval '1 day' - (g % 86400) * interval '1 second'`;
    await ctx.db.query('BEGIN');
    await ctx.db.query(
      `INSERT INTO payment_intents (id, buyer_workspace_id, buyer_agent_id, seller_workspace_id, seller_agent_id, amount_paise,
                                    currency, source_kind, source_id, mandate_id, status, description, rail, rail_reference,
                                    created_at, updated_at, settled_at)
       SELECT 'pi_seed' || g, $1, ($3::text[])[1 + g % cardinality($3::text[])], $1, $2, 45000,
              'INR', 'checkout', 'cs_seed' || g, ($4::text[])[1 + g % cardinality($4::text[])], 'settled', $5, 'sandbox', 'SBXSEED' || g,
              ${at}, ${at}, ${at}
         FROM ${series}`,
      [ws, seller, buyers, mandates, SEED_DESCRIPTION],
    );
    await ctx.db.query(
      `INSERT INTO checkout_sessions (id, workspace_id, seller_agent_id, protocol_key_id, status, currency, line_items,
                                      intent_id, created_at, updated_at, expires_at, completed_at)
       SELECT 'cs_seed' || g, $1, $2, $3, 'completed', 'INR',
              '[{"id":"li_1","item":{"id":"sku_tea_1kg","quantity":1},"base_amount":45000,"discount":0,"subtotal":45000,"tax":0,"total":45000}]'::jsonb,
              'pi_seed' || g, ${at}, ${at}, ${at} + interval '15 minutes', ${at}
         FROM ${series}`,
      [ws, seller, rows[0].pkey],
    );
    await ctx.db.query(
      `INSERT INTO rail_transfers (id, intent_id, direction, amount_paise, status, reference, created_at)
       SELECT 'rt_seed' || g, 'pi_seed' || g, 'debit', 45000, 'succeeded', 'SBXSEED' || g, ${at} FROM ${series}`,
    );
    await ctx.db.query(
      `INSERT INTO outbox_events (id, workspace_id, agent_id, type, subject_id, payload, created_at)
       SELECT 'evt_seed' || g, $1, $2, 'intent.settled', 'pi_seed' || g,
              jsonb_build_object('id', 'evt_seed' || g, 'type', 'intent.settled'), ${at}
         FROM ${series}`,
      [ws, seller],
    );
    await ctx.db.query(
      `INSERT INTO audit_events (workspace_id, actor_type, actor_id, action, subject_id, created_at)
       SELECT $1, 'system', 'pipeline', 'intent.settled', 'pi_seed' || g, ${at} FROM ${series}`,
      [ws],
    );
    await ctx.db.query('COMMIT');
  }
  await ctx.db.query('VACUUM ANALYZE');
  // Write the seed's dirty pages out now, so the measurement after it does not share the disk with a checkpoint.
  await ctx.db.query('CHECKPOINT');
  return n;
}

export const SCENARIOS: Scenario[] = [
  health,
  create,
  get,
  replay,
  replayShared,
  complete,
  completeHalf,
  sellers,
  fullFlow,
  webhookLatency,
  twoInstances,
  soak,
  bigTables,
];

/** Scenarios a plain run includes; the long ones only when their BENCH_* variable asks. */
export function selectedScenarios(opts: BenchOptions): Scenario[] {
  return SCENARIOS.filter((s) => {
    if (opts.only !== null) {
      return opts.only.includes(s.id) || (s.id === '7' && opts.only.includes('0'));
    }
    if (s.id === '9') {
      return opts.twoInstances;
    }
    if (s.id === '10') {
      return opts.soakS > 0;
    }
    if (s.id === '11') {
      return opts.seedIntents > 0;
    }
    return true;
  });
}

export { baseline as BASELINE_SCENARIO, webhookLatency as WEBHOOK_SCENARIO };

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
    `SELECT count(*) AS n FROM payment_intents WHERE status = 'settled' AND description <> $1`,
    [SEED_DESCRIPTION],
  );
  // Completed responses of the measured phases; warm-ups, other rounds and replays are counted in completedUnmeasured.
  const measured = outcomes.reduce((n, o) => n + Number(o.extra.completed ?? 0), 0);
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
      `${settled} settled; ${measured} measured + ${ctx.completedUnmeasured} warm-up/other rounds/recovered`,
    ),
  ];
}
