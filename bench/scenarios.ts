import { Client } from 'pg';
import type { JSONWebKeySet } from 'jose';
import type { ChainEntryJson } from '../src/chains/chain-entry';
import { verifyChain } from '../src/chains/verify-chain';
import { API_VERSION, Http, mapLimit } from './http';
import type { LoadGenerator } from './load-client';
import type { LoadJob, LoadResult } from './protocol';
import { CATEGORY, completeItem, CREATE_BODY, createSession, mintPairs, newKey, World } from './seed';
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
}

export interface BenchContext {
  opts: BenchOptions;
  baseUrl: string;
  http: Http;
  db: Client;
  world: World;
  load: LoadGenerator;
}

interface Scenario {
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

/** Every response had the expected status and the transport never failed. */
function transportChecks(r: LoadResult, expected: number): Check[] {
  const other = Object.entries(r.statusCounts).filter(([code]) => Number(code) !== expected);
  return [
    check('responses received', r.responses > 0, `${r.responses} responses`),
    check(
      `every response is ${expected}`,
      other.length === 0,
      other.length === 0 ? `${r.responses} × ${expected}` : `unexpected: ${JSON.stringify(Object.fromEntries(other))}`,
    ),
    check('no connection errors or timeouts', r.errors === 0 && r.timeouts === 0, `errors ${r.errors}, timeouts ${r.timeouts}`),
  ];
}

function baseJob(ctx: BenchContext, name: string): Pick<LoadJob, 'name' | 'baseUrl' | 'durationS' | 'connections'> {
  return { name, baseUrl: ctx.baseUrl, durationS: ctx.opts.durationS, connections: ctx.opts.connections };
}

function merchantHeaders(world: World, withBody: boolean): Record<string, string> {
  return {
    Authorization: `Bearer ${world.merchantKey}`,
    'API-Version': API_VERSION,
    ...(withBody ? { 'Content-Type': 'application/json' } : {}),
  };
}

const SESSIONS = 'SELECT count(*) AS n FROM checkout_sessions';

const health: Scenario = {
  id: '1',
  title: 'GET /health',
  measures: 'baseline: routing, middleware, SELECT 1 and a Redis PING',
  async run(ctx) {
    const result = await ctx.load.run({ ...baseJob(ctx, 'health'), method: 'GET', path: '/health', headers: {} });
    return { id: this.id, title: this.title, measures: this.measures, result, checks: transportChecks(result, 200), extra: {} };
  },
};

const create: Scenario = {
  id: '2',
  title: 'POST /acp/checkout_sessions',
  measures: 'new session per request (unique Idempotency-Key): auth, idempotency lock + record, pricing, insert',
  async run(ctx) {
    const before = await count(ctx.db, SESSIONS);
    const result = await ctx.load.run({
      ...baseJob(ctx, 'create'),
      method: 'POST',
      path: '/acp/checkout_sessions',
      headers: merchantHeaders(ctx.world, true),
      body: JSON.stringify(CREATE_BODY),
      idempotency: { mode: 'unique', prefix: newKey('bench-create') },
      collectBodies: true,
    });
    const created = (await count(ctx.db, SESSIONS)) - before;
    const ok201 = result.statusCounts['201'] ?? 0;
    const ready = result.bodies.filter((b) => b.http === 201 && b.status === 'ready_for_payment').length;
    return {
      id: this.id,
      title: this.title,
      measures: this.measures,
      result,
      checks: [
        ...transportChecks(result, 201),
        check('one stored session per 201', created === ok201, `${created} rows for ${ok201} × 201`),
        check('every session is ready_for_payment', ready === ok201, `${ready} of ${ok201}`),
      ],
      extra: { sessions_created: created },
    };
  },
};

const get: Scenario = {
  id: '3',
  title: 'GET /acp/checkout_sessions/:id',
  measures: 'read one pre-created session (auth + load + render)',
  async run(ctx) {
    const id = await createSession(ctx.http, ctx.world);
    const result = await ctx.load.run({
      ...baseJob(ctx, 'get'),
      method: 'GET',
      path: `/acp/checkout_sessions/${id}`,
      headers: merchantHeaders(ctx.world, false),
    });
    return { id: this.id, title: this.title, measures: this.measures, result, checks: transportChecks(result, 200), extra: {} };
  },
};

/** Replays must answer the stored 201 and create nothing. */
async function replayChecks(ctx: BenchContext, result: LoadResult, before: number, idemBefore: number): Promise<Check[]> {
  const created = (await count(ctx.db, SESSIONS)) - before;
  const stored = (await count(ctx.db, 'SELECT count(*) AS n FROM idempotency_records')) - idemBefore;
  const ok = result.statusCounts['201'] ?? 0;
  return [
    check('every 201 is a replay (Idempotent-Replayed: true)', result.replayed === ok, `${result.replayed} of ${ok}`),
    check('no session created during replays', created === 0, `${created} new sessions`),
    check('no idempotency record written during replays', stored === 0, `${stored} new records`),
  ];
}

const replay: Scenario = {
  id: '4',
  title: 'POST create, idempotent replay',
  measures:
    'same Idempotency-Key + body again (each connection replays its own key): lock, lookup, stored response',
  async run(ctx) {
    const keys = Array.from({ length: ctx.opts.connections }, () => newKey('bench-replay'));
    for (const key of keys) {
      await createSession(ctx.http, ctx.world, key);
    }
    const before = await count(ctx.db, SESSIONS);
    const idemBefore = await count(ctx.db, 'SELECT count(*) AS n FROM idempotency_records');
    const result = await ctx.load.run({
      ...baseJob(ctx, 'replay'),
      method: 'POST',
      path: '/acp/checkout_sessions',
      headers: merchantHeaders(ctx.world, true),
      body: JSON.stringify(CREATE_BODY),
      idempotency: { mode: 'per-connection', keys },
    });
    return {
      id: this.id,
      title: this.title,
      measures: this.measures,
      result,
      checks: [...transportChecks(result, 201), ...(await replayChecks(ctx, result, before, idemBefore))],
      extra: {},
    };
  },
};

const replayShared: Scenario = {
  id: '4b',
  title: 'POST create, replay, one key for all',
  measures:
    'every connection replays the SAME key at once: concurrent twins meet the in-flight advisory lock (409 idempotency_in_flight is the documented answer)',
  async run(ctx) {
    const key = newKey('bench-replay-shared');
    await createSession(ctx.http, ctx.world, key);
    const before = await count(ctx.db, SESSIONS);
    const idemBefore = await count(ctx.db, 'SELECT count(*) AS n FROM idempotency_records');
    const result = await ctx.load.run({
      ...baseJob(ctx, 'replay-shared'),
      method: 'POST',
      path: '/acp/checkout_sessions',
      headers: merchantHeaders(ctx.world, true),
      body: JSON.stringify(CREATE_BODY),
      idempotency: { mode: 'per-connection', keys: [key] },
    });
    const other = Object.entries(result.statusCounts).filter(([code]) => code !== '201' && code !== '409');
    const inFlight = result.statusCounts['409'] ?? 0;
    return {
      id: this.id,
      title: this.title,
      measures: this.measures,
      result,
      checks: [
        check('only 201 (replay) or 409 (in flight)', other.length === 0, JSON.stringify(result.statusCounts)),
        check('no connection errors or timeouts', result.errors === 0 && result.timeouts === 0, `errors ${result.errors}, timeouts ${result.timeouts}`),
        ...(await replayChecks(ctx, result, before, idemBefore)),
      ],
      extra: { replayed_201: result.statusCounts['201'] ?? 0, in_flight_409: inFlight },
    };
  },
};

/** Fetches a sample of receipts as the buyer and verifies each chain offline against the JWKS. */
async function verifyReceipts(ctx: BenchContext, receiptIds: string[], buyerKeyOf: Map<string, string>): Promise<Check> {
  const jwks = await ctx.http.expect<JSONWebKeySet>(200, 'GET', '/.well-known/jwks.json');
  const bad: string[] = [];
  await mapLimit(receiptIds, 4, async (id) => {
    const receipt = await ctx.http.request<{ entries: ChainEntryJson[] }>('GET', `/acp/receipts/${id}`, {
      bearer: buyerKeyOf.get(id),
      acp: true,
    });
    const verdict = receipt.status === 200 ? await verifyChain(receipt.body.entries, jwks) : null;
    if (!verdict?.valid) {
      bad.push(`${id}: ${verdict?.reason ?? `HTTP ${receipt.status}`}`);
    }
  });
  return check(
    `sampled receipts verify offline (${receiptIds.length})`,
    receiptIds.length > 0 && bad.length === 0,
    bad.length === 0 ? `${receiptIds.length} valid` : bad.slice(0, 3).join('; '),
  );
}

const complete: Scenario = {
  id: '5',
  title: 'POST …/complete (full payment)',
  measures:
    'one pre-minted session + delegated token per request, ₹450: token, buyer rules, rail debit, signed receipt, outbox',
  async run(ctx) {
    const started = Date.now();
    const pairs = await mintPairs(ctx.http, ctx.world, ctx.opts.poolSize, 8);
    const mintS = (Date.now() - started) / 1000;
    const sessionIds = pairs.map((p) => p.sessionId);
    const result = await ctx.load.run({
      ...baseJob(ctx, 'complete'),
      method: 'POST',
      path: '/acp/checkout_sessions/placeholder/complete',
      headers: merchantHeaders(ctx.world, true),
      idempotency: { mode: 'unique', prefix: newKey('bench-complete') },
      pool: pairs.map(completeItem),
      collectBodies: true,
    });
    const ok200 = result.statusCounts['200'] ?? 0;
    const completedIds = result.bodies.filter((b) => b.http === 200 && b.status === 'completed').map((b) => b.id);
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
    const { rows: receipts } = await ctx.db.query<{ receipt_id: string | null; buyer_agent_id: string }>(
      `SELECT receipt_id, buyer_agent_id FROM payment_intents WHERE source_id = ANY($1) AND status = 'settled'`,
      [sessionIds],
    );
    const withReceipt = receipts.filter((r) => r.receipt_id !== null);
    const entries = await count(
      ctx.db,
      'SELECT count(*) AS n FROM chain_entries WHERE chain_id = ANY($1) AND seq = 1',
      [withReceipt.map((r) => r.receipt_id)],
    );
    const debits = await count(
      ctx.db,
      `SELECT count(*) AS n FROM rail_transfers t JOIN payment_intents i ON i.id = t.intent_id
        WHERE i.source_id = ANY($1) AND t.direction = 'debit'`,
      [sessionIds],
    );
    const keyOfBuyer = new Map(ctx.world.buyers.map((b) => [b.id, b.buyerKey]));
    const sample = withReceipt.filter((_, i) => i % Math.max(1, Math.floor(withReceipt.length / 20)) === 0).slice(0, 20);
    const receiptCheck = await verifyReceipts(
      ctx,
      sample.map((r) => r.receipt_id!),
      new Map(sample.map((r) => [r.receipt_id!, keyOfBuyer.get(r.buyer_agent_id)!])),
    );
    const poolExhausted = result.poolUsed >= pairs.length && result.elapsedS < ctx.opts.durationS - 0.5;
    return {
      id: this.id,
      title: this.title,
      measures: this.measures,
      result,
      checks: [
        ...transportChecks(result, 200),
        check('every 200 is status completed', completedIds.length === ok200, `${completedIds.length} of ${ok200}`),
        check('settled intents = completed responses', settled === completedIds.length, `${settled} settled, ${completedIds.length} completed`),
        check('sessions completed = completed responses', sessionsCompleted === completedIds.length, `${sessionsCompleted} sessions`),
        check('one debit per settled intent', debits === settled, `${debits} debits for ${settled} intents`),
        check('every settled intent has a receipt (chain entry 1)', withReceipt.length === settled && entries === settled, `${withReceipt.length} receipt ids, ${entries} entries`),
        receiptCheck,
        check(
          'token pool lasted the whole duration',
          !poolExhausted,
          poolExhausted
            ? `all ${pairs.length} pairs used after ${result.elapsedS} s: raise BENCH_COMPLETE_POOL`
            : `${result.poolUsed} of ${pairs.length} pairs used`,
        ),
      ],
      extra: {
        completes_per_s: Math.round((completedIds.length / result.elapsedS) * 10) / 10,
        completed: completedIds.length,
        pool: pairs.length,
        buyers: ctx.world.buyers.length,
        mint_s: Math.round(mintS * 10) / 10,
      },
    };
  },
};

const sellers: Scenario = {
  id: '6',
  title: `GET /v1/pay/sellers?category=${CATEGORY}`,
  measures: 'seller search page (limit 20) with matching offers, agent credential',
  async run(ctx) {
    const path = `/v1/pay/sellers?category=${CATEGORY}`;
    const bearer = ctx.world.buyers[0].credential;
    const page = await ctx.http.expect<{ data: unknown[] }>(200, 'GET', path, { bearer });
    const result = await ctx.load.run({
      ...baseJob(ctx, 'sellers'),
      method: 'GET',
      path,
      headers: { Authorization: `Bearer ${bearer}` },
    });
    const expected = Math.min(20, ctx.world.sellersInCategory);
    return {
      id: this.id,
      title: this.title,
      measures: this.measures,
      result,
      checks: [
        ...transportChecks(result, 200),
        check('a full page of sellers', page.data.length === expected, `${page.data.length} sellers (expected ${expected})`),
      ],
      extra: { page_size: page.data.length },
    };
  },
};

export const SCENARIOS: Scenario[] = [health, create, get, replay, replayShared, complete, sellers];

/** After every scenario: nothing was debited twice, and only the complete scenario paid. */
export async function finalChecks(ctx: BenchContext, outcomes: ScenarioOutcome[]): Promise<Check[]> {
  const { rows: dup } = await ctx.db.query<{ intent_id: string; n: string }>(
    'SELECT intent_id, count(*) AS n FROM rail_transfers GROUP BY intent_id HAVING count(*) > 1',
  );
  const settled = await count(ctx.db, `SELECT count(*) AS n FROM payment_intents WHERE status = 'settled'`);
  const completed = outcomes.find((o) => o.id === '5')?.extra.completed ?? 0;
  return [
    check('no duplicate debits (rail_transfers grouped by intent)', dup.length === 0, dup.length === 0 ? 'none' : `${dup.length} intents debited twice`),
    check('settled intents in the database = completed responses', settled === completed, `${settled} settled, ${completed} completed`),
  ];
}
