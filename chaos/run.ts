/**
 * `npm run chaos [-- --rail sandbox|gateway] [--seed N] [--duration S] [--flows N] [--clients N]
 * [--redis-persist] [--give-up S] [--settle S]`: our own bounded crash test (docs/testing.md
 * "Chaos run"). Starts its own PostgreSQL cluster, Redis, gateway simulator (with a state file),
 * webhook receiver and the app; drives concurrent payments from retrying clients while killing
 * the app, Postgres, Redis and the simulator at seeded random instants; lets everything settle;
 * checks every invariant (chaos/invariants.ts) and prints one PASS/FAIL line each. Exit code 0
 * only if all pass. Tears everything down at the end and on Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { JSONWebKeySet } from 'jose';
import { Client } from 'pg';

import { verifyChain } from '../src/chains/verify-chain';
import { RetryingClient } from './client';
import {
  acpPurchase,
  FlowContext,
  FlowResult,
  hostedPay,
  linkPay,
  quotePay,
  refund,
  Sandbox,
} from './flows';
import {
  compile,
  freePort,
  killAllChildren,
  makeWorkDir,
  Postgres,
  RedisServer,
  removeDir,
  ROOT,
  Service,
  sleep,
} from './infra';
import {
  CaptureRow,
  capturesAccounted,
  Check,
  clientAgrees,
  eventsGivenUp,
  eventStatesByPayment,
  FlowOutcome,
  formatCheck,
  GatewayEventRow,
  no500,
  noDoubleDebit,
  nothingStuck,
  noUnmatchedEvents,
  oneSettledEventEach,
  retryAfterOn503,
  settledEventsDelivered,
  SimEventRow,
} from './invariants';
import { WebhookReceiver } from './receiver';
import { Rng, seedFrom } from './rng';

interface Options {
  rail: 'sandbox' | 'gateway';
  seed: number;
  durationS: number;
  flows: number;
  clients: number;
  redisPersist: boolean;
  giveUpS: number;
  settleS: number;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i >= 0) {
    return process.argv[i + 1];
  }
  const inline = process.argv.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

function intArg(name: string, fallback: number): number {
  const raw = arg(name);
  if (raw === undefined) {
    return fallback;
  }
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new Error(`${name} must be a positive integer (got "${raw}")`);
  }
  return Number(raw);
}

function options(): Options {
  const rail = arg('--rail') ?? 'sandbox';
  if (rail !== 'sandbox' && rail !== 'gateway') {
    throw new Error(`--rail must be sandbox or gateway (got "${rail}")`);
  }
  return {
    rail,
    seed: seedFrom(arg('--seed')),
    durationS: intArg('--duration', 120),
    flows: intArg('--flows', 300),
    clients: intArg('--clients', 6),
    redisPersist: process.argv.includes('--redis-persist'),
    giveUpS: intArg('--give-up', 90),
    settleS: intArg('--settle', 180),
  };
}

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

/** The port asked for when it is free, else any free one (never the developer's 5432/6379). */
async function portNear(wanted: number): Promise<number> {
  const r = spawnSync('sh', ['-c', `ss -ltn 2>/dev/null | grep -q ':${wanted} '`]);
  return r.status === 0 ? freePort() : wanted;
}

const GATEWAY = {
  keyId: 'rzp_test_chaos',
  keySecret: 'chaos_key_secret',
  webhookSecret: 'chaos_webhook_secret',
};

async function main(): Promise<number> {
  const opts = options();
  const rng = new Rng(opts.seed);
  log(`chaos run: rail ${opts.rail}, seed ${opts.seed} (repeat with --seed ${opts.seed})`);
  const work = makeWorkDir();
  const logs = join(ROOT, '.tmp', 'chaos', `${opts.rail}-${opts.seed}`);
  mkdirSync(logs, { recursive: true });
  let torn = false;
  const receiver = new WebhookReceiver();
  let pg: Postgres | null = null;
  let redis: RedisServer | null = null;
  let app: Service | null = null;
  let sim: Service | null = null;
  const teardown = async () => {
    if (torn) {
      return;
    }
    torn = true;
    await app?.stop(5000).catch(() => undefined);
    await sim?.stop(2000).catch(() => undefined);
    redis?.kill();
    if (pg?.running()) {
      pg.stopImmediate();
    }
    killAllChildren();
    await receiver.close();
    try {
      copyFileSync(join(work, 'postgres.log'), join(logs, 'postgres.log'));
    } catch {
      // no cluster was started
    }
    removeDir(work);
  };
  const onSignal = () => {
    log('interrupted: tearing down');
    void teardown().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    log(`compiling src/ and gateway-sim/ into ${work}`);
    compile(work);
    pg = new Postgres(work, await portNear(55432), join(work, 'postgres.log'));
    pg.init();
    pg.start();
    redis = new RedisServer(
      work,
      await portNear(56379),
      join(logs, 'redis.log'),
      opts.redisPersist,
    );
    await redis.start();
    await receiver.start();
    const appPort = await freePort();
    const appUrl = `http://127.0.0.1:${appPort}`;
    const simPort = await freePort();
    const simUrl = `http://127.0.0.1:${simPort}`;
    log(`postgres :${pg.port}, redis :${redis.port}, app ${appUrl}, receiver ${receiver.url}`);
    if (opts.rail === 'gateway') {
      sim = new Service(
        'simulator',
        process.execPath,
        [join(work, 'gateway-sim', 'main.js')],
        {
          PATH: process.env.PATH,
          GATEWAY_SIM_PORT: String(simPort),
          GATEWAY_KEY_ID: GATEWAY.keyId,
          GATEWAY_KEY_SECRET: GATEWAY.keySecret,
          GATEWAY_WEBHOOK_SECRET: GATEWAY.webhookSecret,
          GATEWAY_SIM_WEBHOOK_URL: `${appUrl}/v1/webhooks/gateway`,
          GATEWAY_SIM_STATE_FILE: join(work, 'simulator-state.json'),
        },
        join(logs, 'simulator.log'),
        `${simUrl}/v1/checkout.js`,
        30_000,
      );
      await sim.start();
    }
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      MODE: 'test',
      PORT: String(appPort),
      BASE_URL: appUrl,
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'chaos',
      LOG_LEVEL: 'info',
      LOG_PRETTY: 'false',
      DAILY_CAP_PAISE: '1000000000000',
      RATE_LIMIT_CREDENTIAL_PER_S: '10000',
      RATE_LIMIT_PUBLIC_PER_S: '10000',
      RATE_LIMIT_PUBLIC_BURST: '10000',
      RATE_LIMIT_LOGIN_PER_MIN: '1000',
      WEBHOOK_RETRY_SCHEDULE_MS: '1000,2000,4000,8000,15000,30000,60000',
      WEBHOOK_DISPATCH_INTERVAL_MS: '500',
      RAIL: opts.rail,
      ...(opts.rail === 'gateway'
        ? {
            GATEWAY_API_URL: simUrl,
            GATEWAY_KEY_ID: GATEWAY.keyId,
            GATEWAY_KEY_SECRET: GATEWAY.keySecret,
            GATEWAY_WEBHOOK_SECRET: GATEWAY.webhookSecret,
            GATEWAY_TIMEOUT_MS: '3000',
            RAIL_RECONCILE_AFTER_MS: '5000',
          }
        : { RAIL_RECONCILE_AFTER_MS: '5000' }),
    };
    const appService = new Service(
      'app',
      process.execPath,
      [join(work, 'dist', 'main.js')],
      env,
      join(logs, 'app.log'),
      `${appUrl}/health/ready`,
      90_000,
    );
    app = appService;
    await appService.start();
    log('app ready; creating the sandbox workspace (src/cli/sandbox.ts)');
    const made = spawnSync(
      process.execPath,
      [join(work, 'dist', 'cli', 'sandbox.js'), '--json', '--webhook-url', receiver.url],
      { env: { ...env, RUN_WORKERS: 'false' }, encoding: 'utf8', timeout: 120_000 },
    );
    if (made.status !== 0) {
      throw new Error(`sandbox set-up failed: ${made.stderr}`);
    }
    const sb = JSON.parse(made.stdout) as Sandbox;
    const limits = { giveUpMs: opts.giveUpS * 1000, timeoutMs: 15_000, maxWaitMs: 5000 };
    const appClient = new RetryingClient(appUrl, limits, true);
    const simClient = sim ? new RetryingClient(simUrl, limits, false) : null;
    let cookie = '';
    const personCookie = async () => {
      const until = Date.now() + limits.giveUpMs;
      while (!cookie) {
        try {
          cookie = await signIn(appUrl, sb.person.email, sb.person.password);
        } catch (err) {
          if (Date.now() > until) {
            throw err;
          }
          await sleep(1000);
        }
      }
      return cookie;
    };
    const ctxOf = (r: Rng): FlowContext => ({
      app: appClient,
      sim: simClient,
      sb,
      rail: opts.rail,
      rng: r,
      gatewayKeyId: GATEWAY.keyId,
      gatewayKeySecret: GATEWAY.keySecret,
      appUrl,
      personCookie,
    });

    // ---- the chaos phase
    const outcomes: FlowOutcome[] = [];
    let started = 0;
    let refunds = 0;
    const deadline = Date.now() + opts.durationS * 1000;
    const flowRng = rng.fork('flows');
    const kinds =
      opts.rail === 'gateway'
        ? (['acp', 'quote_pay', 'hosted', 'link'] as const)
        : (['acp', 'quote_pay', 'hosted'] as const);
    const client = async (i: number) => {
      const r = flowRng.fork(`client${i}`);
      while (Date.now() < deadline && started < opts.flows) {
        const n = ++started;
        const kind = r.pick(kinds);
        const ctx = ctxOf(r);
        let result: FlowResult;
        try {
          result =
            kind === 'acp'
              ? await acpPurchase(ctx, n)
              : kind === 'quote_pay'
                ? await quotePay(ctx, n)
                : kind === 'hosted'
                  ? await hostedPay(ctx, n)
                  : await linkPay(ctx, n);
        } catch (err) {
          log(`flow ${kind}#${n} threw: ${(err as Error).message}`);
          continue;
        }
        if (result.outcome) {
          outcomes.push(result.outcome);
        }
        if (result.settledIntent && r.chance(0.3)) {
          refunds++;
          await refund(ctx, refunds, result.settledIntent).catch((err: unknown) => {
            log(`refund threw: ${(err as Error).message}`);
            cookie = '';
          });
        }
      }
    };
    const faults: string[] = [];
    const killer = async () => {
      const k = rng.fork('kills');
      await sleep(k.int(3000, 8000));
      while (Date.now() < deadline - 5000) {
        const choices = ['app', 'postgres', 'redis', ...(sim ? ['sim_pause', 'sim_kill'] : [])];
        const what = k.pick(choices);
        const downMs = k.int(500, 4000);
        faults.push(what);
        log(`fault: ${what} (${downMs} ms)`);
        try {
          if (what === 'app') {
            appService.kill();
            await sleep(downMs);
            await restartApp(appService);
          } else if (what === 'postgres') {
            pg?.stopImmediate();
            await sleep(downMs);
            pg?.start();
          } else if (what === 'redis') {
            redis?.kill();
            await sleep(downMs);
            await redis?.start();
          } else if (what === 'sim_pause') {
            sim?.pause();
            await sleep(downMs);
            sim?.resume();
          } else {
            sim?.kill();
            await sleep(downMs);
            await sim?.start();
          }
        } catch (err) {
          log(`fault ${what}: recovery failed: ${(err as Error).message}`);
        }
        await sleep(k.int(4000, 12_000));
      }
    };
    log(`driving ${opts.clients} clients for up to ${opts.durationS} s / ${opts.flows} flows`);
    await Promise.all([killer(), ...Array.from({ length: opts.clients }, (_, i) => client(i))]);
    log(
      `chaos phase over: ${started} flows, ${refunds} refunds, faults: ${faults.join(' ') || 'none'}`,
    );

    // ---- settle: everything up, then wait (bounded) for sweeps and deliveries
    sim?.resume();
    if (sim && !sim.up) {
      await sim.start();
    }
    if (!pg.running()) {
      pg.start();
    }
    if (!redis.up) {
      await redis.start();
    }
    if (!appService.up) {
      await restartApp(appService);
    }
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    try {
      const stuck = async () => {
        const q = async (sql: string) => Number((await db.query(sql)).rows[0].n);
        return {
          'processing intents': await q(
            `SELECT count(*) n FROM payment_intents WHERE status = 'processing'`,
          ),
          'processing refunds': await q(
            `SELECT count(*) n FROM refunds WHERE status = 'processing'`,
          ),
          'processing hosted checkouts': await q(
            `SELECT count(*) n FROM hosted_checkouts WHERE status = 'processing'`,
          ),
          'pending outbox events': await q(`SELECT count(*) n FROM outbox_pending`),
          'pending webhook deliveries': await q(
            `SELECT count(*) n FROM webhook_deliveries WHERE status = 'pending'`,
          ),
          ...(simClient ? await gatewayStuck(q) : {}),
        };
      };
      // Gateway rail: a capture refund is asked a sweep later and looked up a minute later, and
      // the simulator's webhooks still queued or waiting for a retry are news the app has not had
      // yet; both are waited for. The simulator gives an event up after 6 tries in about 31 s
      // (docs/gateway-simulator.md), while the app may be down longer than that here (a restart
      // on a loaded machine takes 20-40 s); a real gateway keeps retrying for hours, so each
      // event given up is sent again (a redelivery, as its dashboard would) until the app has it.
      let redelivered = 0;
      const gatewayStuck = async (q: (sql: string) => Promise<number>) => {
        const events = await simEvents();
        for (const id of eventsGivenUp(events)) {
          const r = await simClient?.call(
            'settle',
            'redeliver',
            'POST',
            '/__sim/webhooks/redeliver',
            {
              json: { event_id: id },
              idempotencyKey: null,
            },
          );
          redelivered += r?.status === 200 ? 1 : 0;
        }
        const queue = await simClient?.call('settle', 'webhooks', 'GET', '/__sim/webhooks');
        const p = (queue?.body.pending ?? {}) as Record<string, number | boolean>;
        return {
          'capture refunds not refunded yet': await q(
            `SELECT count(*) n FROM gateway_capture_refunds WHERE status <> 'refunded'`,
          ),
          'simulator webhooks not delivered yet':
            Number(p.queued ?? 0) +
            Number(p.retries_scheduled ?? 0) +
            (p.in_flight ? 1 : 0) +
            eventsGivenUp(events).length,
        };
      };
      const simEvents = async (): Promise<SimEventRow[]> => {
        const r = await simClient?.call('settle', 'events', 'GET', '/__sim/webhooks/events');
        return (r?.body.items ?? []) as SimEventRow[];
      };
      const settleBy = Date.now() + opts.settleS * 1000;
      let counts = await stuck();
      while (Date.now() < settleBy && Object.values(counts).some((n) => n > 0)) {
        await sleep(2000);
        counts = await stuck();
      }
      if (redelivered > 0) {
        log(`the simulator had given up on events: ${redelivered} redeliveries while settling`);
      }
      await sleep(3000);
      counts = await stuck();
      log(`settled: ${JSON.stringify(counts)}; the receiver got ${receiver.count} deliveries`);

      // ---- invariants
      const intents = (
        await db.query(
          `SELECT id, status, source_kind, source_id, rail_reference FROM payment_intents`,
        )
      ).rows;
      const debits = (
        await db.query(
          `SELECT intent_id, status, gateway_payment_id FROM rail_transfers WHERE direction = 'debit'`,
        )
      ).rows;
      const outbox = (await db.query(`SELECT type, subject_id FROM outbox_events`)).rows;
      const paid = new Set<string>([
        ...(await db.query(`SELECT id FROM checkout_sessions WHERE status = 'completed'`)).rows.map(
          (r: { id: string }) => r.id,
        ),
        ...(await db.query(`SELECT id FROM quotes WHERE status = 'paid'`)).rows.map(
          (r: { id: string }) => r.id,
        ),
      ]);
      const checks: Check[] = [noDoubleDebit(intents, debits)];
      if (sim && simClient) {
        const state = await simClient.call('check', 'state', 'GET', '/__sim/state');
        const captures = (state.body.payments ?? []) as CaptureRow[];
        checks.push(
          capturesAccounted(
            captures,
            intents,
            debits,
            await captureNotes(db, captures, await simEvents()),
          ),
        );
      } else {
        checks.push({
          name: 'every gateway capture settled exactly one intent or was refunded in full',
          ok: true,
          detail: 'no gateway on the sandbox rail',
        });
      }
      checks.push(await chainsVerify(db, appUrl));
      checks.push(oneSettledEventEach(intents, outbox));
      checks.push(settledEventsDelivered(intents, receiver.rows(sb.webhook?.secret ?? '')));
      checks.push(no500(appClient.attempts));
      checks.push(retryAfterOn503(appClient.attempts));
      checks.push(nothingStuck(counts));
      checks.push(clientAgrees(outcomes, paid));
      const gatewayEvents = (await db.query(`SELECT id, type, outcome FROM gateway_events`))
        .rows as GatewayEventRow[];
      checks.push(noUnmatchedEvents(gatewayEvents));
      process.stdout.write('\n');
      for (const c of checks) {
        process.stdout.write(`${formatCheck(c)}\n`);
      }
      const failed = checks.filter((c) => !c.ok).length;
      process.stdout.write(
        `\n${failed === 0 ? 'ALL PASS' : `${failed} FAIL`} (rail ${opts.rail}, seed ${opts.seed}, ${outcomes.length} flows, ${appClient.attempts.length} attempts; logs in ${logs})\n`,
      );
      return failed === 0 ? 0 : 1;
    } finally {
      await db.end();
    }
  } finally {
    await teardown();
  }
}

/**
 * Starts the app again, as a supervisor would: when it exits at boot (its dependencies down),
 * it is started again, for up to two minutes.
 */
async function restartApp(app: Service): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    try {
      await app.start();
      return;
    } catch (err) {
      log(`app did not come up (${(err as Error).message}); starting it again`);
      app.kill();
      await sleep(1000);
    }
  }
  throw new Error('the app did not come up within 2 minutes');
}

/** Every receipt chain, against the service's JWKS and the chain's recorded head. */
/**
 * What the database and the simulator's webhook queue know of each gateway payment, shown with
 * a capture that settled nothing: what gateway_orders records of its order (kind, subject, the
 * hosted checkout or link and its intent), a capture refund, and each of its events' delivery.
 */
async function captureNotes(
  db: Client,
  captures: readonly CaptureRow[],
  events: readonly SimEventRow[],
): Promise<Map<string, string>> {
  const orders = (
    await db.query(
      `SELECT o.id, o.kind, o.subject_id, h.channel, h.status AS checkout_status,
              i.status AS intent_status, i.rail_reference
         FROM gateway_orders o
         LEFT JOIN hosted_checkouts h ON o.kind = 'hosted' AND h.id = o.subject_id
         LEFT JOIN payment_intents i
                ON i.id = COALESCE(h.intent_id, CASE WHEN o.kind = 'intent' THEN o.subject_id END)`,
    )
  ).rows as Record<string, string | null>[];
  const byOrder = new Map(orders.map((o) => [o.id as string, o]));
  const refunds = new Map(
    (
      (await db.query(`SELECT payment_id, status, reason_code FROM gateway_capture_refunds`))
        .rows as { payment_id: string; status: string; reason_code: string }[]
    ).map((r) => [r.payment_id, `capture refund ${r.status} (${r.reason_code})`]),
  );
  const eventStates = eventStatesByPayment(events);
  const notes = new Map<string, string>();
  for (const c of captures) {
    const o = c.order_id ? byOrder.get(c.order_id) : undefined;
    const order = o
      ? `order ${o.id}: ${o.kind} ${o.subject_id}` +
        (o.channel ? ` (${o.channel} ${o.checkout_status})` : '') +
        (o.intent_status ? `, intent ${o.intent_status} on ${o.rail_reference}` : '')
      : `order ${c.order_id ?? '?'} not in gateway_orders`;
    const parts = [
      order,
      refunds.get(c.id),
      eventStates.get(c.id) && `events: ${eventStates.get(c.id)}`,
    ];
    notes.set(c.id, parts.filter(Boolean).join('; '));
  }
  return notes;
}

async function chainsVerify(db: Client, appUrl: string): Promise<Check> {
  const jwks = (await (await fetch(`${appUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  const chains = (await db.query(`SELECT id, head_hash, length FROM chains`)).rows as {
    id: string;
    head_hash: string;
    length: number;
  }[];
  const problems: string[] = [];
  let entries = 0;
  for (const c of chains) {
    const rows = (
      await db.query(
        `SELECT chain_id, seq, prev_hash, hash, created_at, payload, kid, jws FROM chain_entries WHERE chain_id = $1 ORDER BY seq`,
        [c.id],
      )
    ).rows as {
      chain_id: string;
      seq: number;
      prev_hash: string;
      hash: string;
      created_at: Date;
      payload: Record<string, unknown>;
      kid: string;
      jws: string;
    }[];
    entries += rows.length;
    const result = await verifyChain(
      rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
      jwks,
      { length: c.length, head_hash: c.head_hash },
    );
    if (!result.valid) {
      problems.push(`chain ${c.id}: ${result.reason}`);
    }
  }
  return {
    name: 'every receipt chain verifies',
    ok: problems.length === 0,
    detail:
      problems.length === 0
        ? `${chains.length} chains, ${entries} entries`
        : problems.slice(0, 5).join('; '),
  };
}

/** The person signs in through the real form (pre-session CSRF cookie + _csrf field). */
async function signIn(appUrl: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${appUrl}/app/login`);
  const html = await form.text();
  const csrfCookie = (
    form.headers.getSetCookie().find((c) => c.startsWith('svc_csrf=')) ?? ''
  ).split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const res = await fetch(`${appUrl}/app/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  await res.arrayBuffer();
  const session = res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
  if (res.status !== 303 || !session) {
    throw new Error(`sign-in failed: ${res.status}`);
  }
  return session.split(';')[0];
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos run failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(2);
  },
);
