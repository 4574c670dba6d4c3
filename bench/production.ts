// `npm run bench:prod`: the full flow against the app as users run it. Builds dist/ (`npm run
// build`; BENCH_BUILD=false uses the dist/ already there), prepares and seeds payments_bench like
// `npm run bench` (migrations, then AppModule booted in this process only to seed, then closed),
// and starts `node dist/main.js` as a child process in live mode: JSON logs at LOG_LEVEL info,
// the rate limits at their live defaults (docs/configuration.md). Two yardsticks run in their own
// processes, compiled and run by plain node like the app (bench/yardstick.ts): raw `pg` and
// TypeORM, each a bare Nest route doing BEGIN; INSERT; COMMIT. BENCH_ROUNDS interleaved rounds of
// raw → TypeORM → full flow (scenario 7's load generator pointed at the child), then the
// optional soak (BENCH_SOAK_S), then the goals' phases: flows arriving at half the rounds' rate,
// and settle → webhook (scenario 8) on the same build in sandbox mode (sandboxEnv); a goals block
// ends the report (bench/README.md "Production build"). RSS and CPU are the app child's (CPU also
// the yardsticks' and Postgres's). Exit code 0 only when every check passed:
// no 5xx (client side and in the app's log), no 3xx/4xx (so no 429), no double debit, every
// settled intent with a receipt and one `intent.settled` outbox event.
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { Client } from 'pg';
import { ModuleKind, ScriptTarget, transpileModule } from 'typescript';

import { BenchChild } from './children';
import { Http } from './http';
import { LoadGenerator } from './load-client';
import type { LoadJob, LoadResult } from './protocol';
import { checkLines } from './report';
import { cpuDuring, RssSampler, RssSummary } from './rss';
import {
  BenchContext,
  Check,
  check,
  count,
  deadlocks,
  finalChecks,
  flowOutcome,
  FlowRun,
  flowRun,
  median,
  medianIndex,
  rate,
  ratio,
  Scenario,
  ScenarioOutcome,
  transportChecks,
  WEBHOOK_SCENARIO,
} from './scenarios';
import { seedWorld, World } from './seed';
import { applyAppEnv, BASELINE_TABLE, benchOptions, prepareDatabase, startInstance } from './setup';

/** The raw yardstick's own table (the TypeORM one inserts into BASELINE_TABLE, as in `npm run bench`). */
const RAW_TABLE = 'bench_raw_baseline';
const ROOT = join(__dirname, '..');
const RESULTS = join(__dirname, 'results');
const APP_LOG = join(RESULTS, 'production-app.log');
/** The log of the same build in sandbox mode, for the webhook phase (see sandboxEnv). */
const SANDBOX_APP_LOG = join(RESULTS, 'production-app-sandbox.log');

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** `npm run build` unless BENCH_BUILD=false; either way dist/main.js must be there. */
function build(): number {
  const started = Date.now();
  if (process.env.BENCH_BUILD !== 'false') {
    const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) {
      throw new Error(`npm run build failed (exit ${r.status})`);
    }
  }
  if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
    throw new Error('dist/main.js is missing: run npm run build (or leave BENCH_BUILD unset)');
  }
  return (Date.now() - started) / 1000;
}

/**
 * bench/yardstick.ts as plain JavaScript for plain node, in .tmp/bench/ (git-ignored and outside
 * the lint; node_modules resolves from there as from bench/).
 */
function compileYardstick(): string {
  const out = transpileModule(readFileSync(join(__dirname, 'yardstick.ts'), 'utf8'), {
    compilerOptions: {
      module: ModuleKind.CommonJS,
      target: ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
    },
  });
  const dir = join(ROOT, '.tmp', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'yardstick.js');
  writeFileSync(file, out.outputText);
  return file;
}

/**
 * The app child's whole environment: nothing of this process's (the seeding boot's MODE=test and
 * lifted limits stay here). Live mode needs https BASE_URL and its secrets (docs/configuration.md);
 * they are fresh for every run. Only the daily cap is lifted, as `npm run bench` does.
 */
function appEnv(port: number, databaseUrl: string, redisUrl: string): NodeJS.ProcessEnv {
  const key32 = () => randomBytes(32).toString('base64');
  return {
    PATH: process.env.PATH,
    NODE_OPTIONS: imageNodeOptions(),
    NODE_ENV: 'production',
    MODE: 'live',
    PORT: String(port),
    BASE_URL: 'https://bench.invalid',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: 'bench',
    LOG_LEVEL: 'info',
    LOG_PRETTY: 'false',
    DAILY_CAP_PAISE: '1000000000000000',
    SIGNING_PRIVATE_KEY: generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
    WEBHOOK_SECRET_KEY: key32(),
    DOCUMENT_ENCRYPTION_KEY: key32(),
    FOREX_PAN_PEPPER: key32(),
  };
}

/**
 * The same build in sandbox mode, for the webhook phase only: live mode delivers webhooks only to
 * public https receivers (src/webhooks/url-policy.ts), and the bench's receiver is a local process.
 * Logs as in live; the per-credential rate limit set to live's default (sandbox's is 25/s).
 */
function sandboxEnv(port: number, databaseUrl: string, redisUrl: string): NodeJS.ProcessEnv {
  return {
    ...appEnv(port, databaseUrl, redisUrl),
    MODE: 'sandbox',
    RATE_LIMIT_CREDENTIAL_PER_S: '100',
  };
}

/** The image's `ENV NODE_OPTIONS=…` (Dockerfile): the heap settings the app runs with. */
function imageNodeOptions(): string {
  const line = /^ENV NODE_OPTIONS=(.+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  return line ? line[1].trim() : '';
}

interface AppChild {
  pid: number;
  url: string;
  bootS: number;
  stop(): Promise<void>;
}

/** `node dist/main.js`, its stdout and stderr (JSON log lines) into bench/results/production-app.log. */
async function startApp(
  env: NodeJS.ProcessEnv,
  logFile = APP_LOG,
  timeoutMs = 60_000,
): Promise<AppChild> {
  const fd = openSync(logFile, 'w');
  const started = Date.now();
  // BENCH_CPU_PROFILE=1: V8's CPU profile of the app for the whole run (written when it exits on
  // SIGTERM) into bench/results/cpu/, for Chrome DevTools or `node bench/profile-summary.js`.
  const profile =
    process.env.BENCH_CPU_PROFILE === '1'
      ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'cpu')}`]
      : [];
  // BENCH_NODE_FLAGS: V8/Node flags for the app child only (e.g. heap sizing, bench/README.md).
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  const child = spawn(process.execPath, [...flags, ...profile, join('dist', 'main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  // Whatever ends the bench (a crash, process.exit) ends the app too: it must not keep the port and pool.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  const state: { exited: number | null } = { exited: null };
  child.once('exit', (code) => {
    state.exited = code ?? -1;
  });
  const url = `http://127.0.0.1:${env.PORT}`;
  // Ready = Postgres and Redis answer and no migration is pending (the image's HEALTHCHECK probe).
  for (;;) {
    if (state.exited !== null) {
      throw new Error(
        `node dist/main.js exited (code ${state.exited}) before ready; see ${logFile}`,
      );
    }
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`node dist/main.js not ready in ${timeoutMs} ms; see ${logFile}`);
    }
    const ok = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) {
      break;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    pid: child.pid ?? 0,
    url,
    bootS: (Date.now() - started) / 1000,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) {
        return;
      }
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
      process.off('exit', reap);
    },
  };
}

/** Boots AppModule in this process on the prepared database only to seed it, then closes it. */
async function seed(buyers: number, merchantKeys: number): Promise<World> {
  const running = await startInstance();
  try {
    const world = await seedWorld(running.app, new Http(running.url), buyers);
    const { ProtocolKeysService } = await import('../src/protocol-keys/protocol-keys.service');
    const keys = running.app.get(ProtocolKeysService);
    const actor = { type: 'person' as const, id: world.personId };
    world.merchantKeys = [];
    for (let i = 0; i < merchantKeys; i++) {
      const k = await keys.create(
        world.workspaceId,
        { role: 'merchant', agentId: world.seller.id },
        actor,
      );
      world.merchantKeys.push(k.key!);
    }
    return world;
  } finally {
    await running.app.close();
  }
}

/** Lines of the app's log whose response was 5xx, and all request lines (`res.status` of pino-http's line). */
async function logStatuses(
  files: string[],
): Promise<{ lines: number; requests: number; fivexx: number }> {
  let lines = 0;
  let requests = 0;
  let fivexx = 0;
  for (const file of files.filter((f) => existsSync(f))) {
    const input = createReadStream(file);
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      lines++;
      try {
        const res = (JSON.parse(line) as { res?: { status?: number; statusCode?: number } }).res;
        const status = res?.status ?? res?.statusCode;
        if (typeof status === 'number') {
          requests++;
          fivexx += status >= 500 ? 1 : 0;
        }
      } catch {
        // not a JSON line (a crash trace): counted in lines only
      }
    }
  }
  return { lines, requests, fivexx };
}

const FLOW: Scenario = {
  id: 'P',
  title: 'production build: full flow',
  measures:
    'node dist/main.js in live mode (JSON logs, LOG_LEVEL info, live rate limits) in its own process; scenario 7’s virtual agents, one merchant key per agent',
  run: () => Promise.reject(new Error('runs from bench/production.ts')),
};

/** The whole database, not only this run's sessions: what must never happen to any intent. */
async function moneyChecks(db: Client): Promise<Check[]> {
  const doubleDebits = await count(
    db,
    `SELECT count(*) AS n FROM (SELECT intent_id FROM rail_transfers WHERE direction = 'debit'
       GROUP BY intent_id HAVING count(*) > 1) x`,
  );
  const noReceipt = await count(
    db,
    `SELECT count(*) AS n FROM payment_intents i WHERE i.status = 'settled'
       AND NOT EXISTS (SELECT 1 FROM chain_entries c WHERE c.chain_id = i.receipt_id AND c.seq = 1)`,
  );
  const noEvent = await count(
    db,
    `SELECT count(*) AS n FROM payment_intents i WHERE i.status = 'settled'
       AND (SELECT count(*) FROM outbox_events o WHERE o.type = 'intent.settled' AND o.subject_id = i.id) <> 1`,
  );
  const settled = await count(
    db,
    `SELECT count(*) AS n FROM payment_intents WHERE status = 'settled'`,
  );
  return [
    check('no intent with two rail_transfers debits', doubleDebits === 0, `${doubleDebits}`),
    check(
      'every settled intent has a receipt',
      noReceipt === 0,
      `${noReceipt} of ${settled} without`,
    ),
    check(
      'every settled intent has one intent.settled outbox event',
      noEvent === 0,
      `${noEvent} of ${settled} off`,
    ),
  ];
}

interface Round {
  raw: LoadResult;
  typeorm: LoadResult;
  flow: FlowRun;
  rss: RssSummary;
  /** CPU ms per request (yardsticks) or per completed flow (app): the process's own, and Postgres's. */
  cpu: Record<'raw' | 'typeorm' | 'flow', { processMs: number; postgresMs: number }>;
  /** WAL bytes per request (yardsticks) or per completed flow (walDuring). */
  walBytes: Record<'raw' | 'typeorm' | 'flow', number>;
  /** The process's read and write system calls per request (yardsticks) or per completed flow (app). */
  syscalls: Record<'raw' | 'typeorm' | 'flow', number>;
}

/**
 * The bytes of WAL Postgres wrote while `run` ran (all databases; the bench is the machine's only
 * writer). Unlike CPU time and rates, which other work on a shared machine moves, this is the same
 * every run for the same statements: the write work a unit of work asks of Postgres (rows, index
 * entries, row locks, commits), so a change to it shows even when the rates cannot.
 */
async function walDuring<T>(
  db: Client,
  run: () => Promise<T>,
): Promise<{ value: T; bytes: number }> {
  const lsn = async () =>
    (await db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]
      .lsn;
  const from = await lsn();
  const value = await run();
  const to = await lsn();
  const { rows } = await db.query<{ bytes: string }>(
    'SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint::text AS bytes',
    [to, from],
  );
  return { value, bytes: Number(rows[0].bytes) };
}

/** A count per unit of work, to 0.1. */
function perOne(count: number, units: number): number {
  return units > 0 ? Math.round((count * 10) / units) / 10 : 0;
}

/** Bytes per unit of work, whole bytes. */
function bytesPer(bytes: number, units: number): number {
  return units > 0 ? Math.round(bytes / units) : 0;
}

/** CPU ms per unit of work, rounded to 0.01. */
function perUnit(cpu: { processS: number; postgresS: number }, units: number) {
  const ms = (s: number) => (units > 0 ? Math.round((s * 1000 * 100) / units) / 100 : 0);
  return { processMs: ms(cpu.processS), postgresMs: ms(cpu.postgresS) };
}

async function main(): Promise<number> {
  const opts = benchOptions();
  applyAppEnv(opts);
  const startedAt = new Date();
  mkdirSync(RESULTS, { recursive: true });
  log(
    `bench:prod: ${opts.rounds} rounds of raw yardstick ${opts.durationS} s → TypeORM yardstick ${opts.durationS} s → full flow ${opts.flowDurationS} s (${opts.flowAgents} agents, ${opts.buyers} buyers)${opts.soakS ? `, then a ${opts.soakS} s soak` : ''}; database ${new URL(opts.databaseUrl).pathname.slice(1)} (recreated)`,
  );
  // Other work on the machine moves every figure here: the load average says how much there was.
  const loadBefore = loadavg()[0];
  const buildS = build();
  const yardstickJs = compileYardstick();
  await prepareDatabase(opts);
  const db = new Client({ connectionString: opts.databaseUrl });
  await db.connect();
  await db.query(
    `CREATE TABLE ${RAW_TABLE} (id bigserial PRIMARY KEY, note text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  );
  const seedStarted = Date.now();
  // One merchant key per virtual agent by default (BENCH_MERCHANT_KEYS): create + complete on one
  // key would pass the live limit of 100 requests per second per credential at about 50 flows/s.
  const merchantKeys = Number(process.env.BENCH_MERCHANT_KEYS ?? opts.flowAgents);
  if (!Number.isInteger(merchantKeys) || merchantKeys < 1) {
    throw new Error(`BENCH_MERCHANT_KEYS must be a positive integer (got "${merchantKeys}")`);
  }
  const world = await seed(opts.buyers, merchantKeys);
  const seedS = (Date.now() - seedStarted) / 1000;

  let app: AppChild | undefined;
  let raw: BenchChild | undefined;
  let orm: BenchChild | undefined;
  let load: LoadGenerator | undefined;
  try {
    app = await startApp(appEnv(await freePort(), opts.databaseUrl, opts.redisUrl));
    const yardEnv = (kind: string, table: string): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      YARDSTICK_KIND: kind,
      YARDSTICK_TABLE: table,
      DATABASE_URL: opts.databaseUrl,
      DATABASE_POOL_MAX: '20',
    });
    raw = await BenchChild.start(yardstickJs, 60_000, {
      compiled: true,
      env: yardEnv('raw', RAW_TABLE),
    });
    orm = await BenchChild.start(yardstickJs, 60_000, {
      compiled: true,
      env: yardEnv('typeorm', BASELINE_TABLE),
    });
    load = LoadGenerator.start();
    const pids = { app: app.pid, raw: raw.pid, typeorm: orm.pid };
    const ctx: BenchContext = {
      opts,
      baseUrl: app.url,
      http: new Http(app.url),
      db,
      world,
      load,
      completedUnmeasured: 0,
      baselineUrl: String(orm.ready.url),
      pgListen: true,
      rss: new RssSampler(() => pids),
    };
    const rssIdle = new RssSampler(() => pids);
    rssIdle.start();
    const idle = rssIdle.stop().last;
    log(
      `built in ${buildS.toFixed(1)} s; seeded in ${seedS.toFixed(1)} s (${world.buyers.length} buyers, ${world.merchantKeys?.length} merchant keys); node dist/main.js (pid ${app.pid}) ready in ${app.bootS.toFixed(1)} s on ${app.url}, log ${join('bench', 'results', 'production-app.log')}; yardsticks raw ${String(raw.ready.url)}, TypeORM ${String(orm.ready.url)}`,
    );
    log(
      `RSS idle: app ${idle.app} MB, raw yardstick ${idle.raw} MB, TypeORM yardstick ${idle.typeorm} MB`,
    );

    const yardJob = (name: string, url: string, durationS: number): LoadJob => ({
      name,
      baseUrl: url,
      durationS,
      connections: opts.connections,
      method: 'POST',
      path: '/baseline',
      headers: {},
    });
    const rawUrl = String(raw.ready.url);
    const ormUrl = String(orm.ready.url);
    const yardsticks: LoadResult[] = [];
    const deadlocksBefore = await deadlocks(ctx);
    const rawBefore = await count(db, `SELECT count(*) AS n FROM ${RAW_TABLE}`);
    const ormBefore = await count(db, `SELECT count(*) AS n FROM ${BASELINE_TABLE}`);
    let warm: FlowRun | null = null;
    if (opts.warmupS > 0) {
      yardsticks.push(await load.run(yardJob('raw-warmup', rawUrl, opts.warmupS)));
      yardsticks.push(await load.run(yardJob('typeorm-warmup', ormUrl, opts.warmupS)));
      // The app process is fresh (nothing has run through its JIT yet): at least 5 s of flows.
      warm = await flowRun(ctx, 'prod-flow-warmup', Math.max(opts.warmupS, 5));
    }
    const rounds: Round[] = [];
    for (let i = 1; i <= opts.rounds; i++) {
      // CPU time alongside the rates: what each unit of work cost the machine, which other load
      // on it moves far less than it moves the rates.
      const [rawPid, ormPid] = [raw.pid, orm.pid];
      const rawRun = await walDuring(db, () =>
        cpuDuring(rawPid, () => load!.run(yardJob(`raw-r${i}`, rawUrl, opts.durationS))),
      );
      const ormRun = await walDuring(db, () =>
        cpuDuring(ormPid, () => load!.run(yardJob(`typeorm-r${i}`, ormUrl, opts.durationS))),
      );
      const r = rawRun.value.value;
      const t = ormRun.value.value;
      yardsticks.push(r, t);
      ctx.rss.start();
      const flowRunWal = await walDuring(db, () =>
        cpuDuring(pids.app, () => flowRun(ctx, `prod-flow-r${i}`, opts.flowDurationS)),
      );
      const flowCpu = flowRunWal.value;
      const flow = flowCpu.value;
      const rss = ctx.rss.stop();
      const cpu = {
        raw: perUnit(rawRun.value, r.responses),
        typeorm: perUnit(ormRun.value, t.responses),
        flow: perUnit(flowCpu, flow.result.flowsCompleted),
      };
      const walBytes = {
        raw: bytesPer(rawRun.bytes, r.responses),
        typeorm: bytesPer(ormRun.bytes, t.responses),
        flow: bytesPer(flowRunWal.bytes, flow.result.flowsCompleted),
      };
      const syscalls = {
        raw: perOne(rawRun.value.syscalls, r.responses),
        typeorm: perOne(ormRun.value.syscalls, t.responses),
        flow: perOne(flowCpu.syscalls, flow.result.flowsCompleted),
      };
      rounds.push({ raw: r, typeorm: t, flow, rss, cpu, walBytes, syscalls });
      log(
        `  round ${i}: raw ${rate(r.responses, r.elapsedS)} req/s, TypeORM ${rate(t.responses, t.elapsedS)} req/s, ${rate(flow.result.flowsCompletedInWindow, flow.result.durationS)} flows/s, app RSS max ${rss.max.app} MB; CPU ms (process + Postgres): raw ${cpu.raw.processMs} + ${cpu.raw.postgresMs} per request, TypeORM ${cpu.typeorm.processMs} + ${cpu.typeorm.postgresMs}, flow ${cpu.flow.processMs} + ${cpu.flow.postgresMs}; WAL bytes: raw ${walBytes.raw} per request, flow ${walBytes.flow}; read/write syscalls: raw ${syscalls.raw} per request, flow ${syscalls.flow}`,
      );
    }

    let soak: { run: FlowRun; rss: RssSummary } | null = null;
    if (opts.soakS > 0) {
      log(`  soak: ${opts.soakS} s of the full flow…`);
      ctx.rss.start();
      const run = await flowRun(ctx, 'prod-soak', opts.soakS);
      soak = { run, rss: ctx.rss.stop() };
    }

    // The latency goals (bench/README.md "Production build"). Half load: flows arriving at half
    // the rounds' median rate, at uniform intervals (open loop), on the same live app.
    const maxFlowsPerS = median(
      rounds.map((x) => rate(x.flow.result.flowsCompletedInWindow, x.flow.result.durationS)),
    );
    const halfRate = Math.max(1, Math.round(maxFlowsPerS / 2));
    log(
      `  half load: flows arriving at ${halfRate}/s (half of the rounds' median ${maxFlowsPerS} flows/s), open loop, ${opts.flowDurationS} s…`,
    );
    const half = await flowRun(ctx, 'prod-half', opts.flowDurationS, undefined, halfRate);
    const halfComplete = half.result.steps.complete.latencyMs;
    log(
      `    ${rate(half.result.flowsCompletedInWindow, half.result.durationS)} flows/s; complete p50/p99 ${halfComplete.p50}/${halfComplete.p99} ms`,
    );

    // Settle → webhook: scenario 8 (completes at BENCH_WEBHOOK_RATE, default 100/s, a local
    // receiver) against the same build restarted in sandbox mode (sandboxEnv says why).
    await app.stop();
    app = await startApp(
      sandboxEnv(await freePort(), opts.databaseUrl, opts.redisUrl),
      SANDBOX_APP_LOG,
    );
    pids.app = app.pid;
    ctx.baseUrl = app.url;
    ctx.http = new Http(app.url);
    log(
      `  settle → webhook: node dist/main.js restarted in sandbox mode (pid ${app.pid}), log ${join('bench', 'results', 'production-app-sandbox.log')}…`,
    );
    const ran = await WEBHOOK_SCENARIO.run(ctx);
    const webhookO = Array.isArray(ran) ? ran[0] : ran;
    for (const line of webhookO.lines ?? []) {
      log(`  ${line}`);
    }

    const perRound = rounds.map(({ raw: r, typeorm: t, flow, rss, cpu, walBytes, syscalls }, i) => {
      const rawRps = rate(r.responses, r.elapsedS);
      const ormRps = rate(t.responses, t.elapsedS);
      const flowsPerS = rate(flow.result.flowsCompletedInWindow, flow.result.durationS);
      const c = flow.result.steps.complete.latencyMs;
      return {
        round: i + 1,
        raw_rps: rawRps,
        typeorm_rps: ormRps,
        flows_per_s: flowsPerS,
        raw_per_flow: ratio(rawRps, flowsPerS),
        typeorm_per_flow: ratio(ormRps, flowsPerS),
        complete_p50_ms: c.p50,
        complete_p99_ms: c.p99,
        app_rss_max_mb: rss.max.app ?? 0,
        cpu_ms: cpu,
        // The flow's CPU (app + Postgres) in raw-yardstick requests' CPU (yardstick + Postgres).
        cpu_raw_per_flow: ratio(
          cpu.flow.processMs + cpu.flow.postgresMs,
          cpu.raw.processMs + cpu.raw.postgresMs,
        ),
        wal_bytes: walBytes,
        // The flow's WAL in raw-yardstick requests' WAL.
        wal_raw_per_flow: ratio(walBytes.flow, walBytes.raw),
        syscalls,
        // The app's read/write system calls per flow in the raw yardstick's per request.
        syscalls_raw_per_flow: ratio(syscalls.flow, syscalls.raw),
      };
    });
    // One decimal: the median of an even number of rounds is a mean of two.
    const med = (f: (x: (typeof perRound)[number]) => number) =>
      Math.round(median(perRound.map(f)) * 10) / 10;
    const mid = medianIndex(perRound.map((x) => x.flows_per_s));
    const runs = [
      ...(warm ? [warm] : []),
      ...rounds.map((x) => x.flow),
      ...(soak ? [soak.run] : []),
      half,
    ];
    const flowO: ScenarioOutcome = await flowOutcome(
      ctx,
      FLOW,
      runs,
      rounds[mid].flow,
      warm,
      (await deadlocks(ctx)) - deadlocksBefore,
    );

    const rawRows = (await count(db, `SELECT count(*) AS n FROM ${RAW_TABLE}`)) - rawBefore;
    const ormRows = (await count(db, `SELECT count(*) AS n FROM ${BASELINE_TABLE}`)) - ormBefore;
    const ok201 = (prefix: string) =>
      yardsticks
        .filter((y) => y.name.startsWith(prefix))
        .reduce((n, y) => n + (y.statusCounts['201'] ?? 0), 0);
    const inFlightMax = (opts.rounds + 1) * opts.connections;
    const yardChecks: Check[] = [
      ...yardsticks.flatMap((y) =>
        transportChecks(y, 201)
          .filter((c) => !c.ok)
          .map((c) => ({ ...c, name: `${y.name}: ${c.name}` })),
      ),
      check(
        'yardsticks: every response 201, one row per 201 (+ in flight at a stop)',
        rawRows >= ok201('raw') &&
          rawRows <= ok201('raw') + inFlightMax &&
          ormRows >= ok201('typeorm') &&
          ormRows <= ok201('typeorm') + inFlightMax,
        `raw ${rawRows} rows for ${ok201('raw')} × 201, TypeORM ${ormRows} rows for ${ok201('typeorm')} × 201`,
      ),
    ];
    const appLog = await logStatuses([APP_LOG, SANDBOX_APP_LOG]);
    const final: Check[] = [
      ...(await finalChecks(ctx, [flowO, webhookO])),
      ...(await moneyChecks(db)),
      check(
        'no 5xx in the app log',
        appLog.fivexx === 0,
        `${appLog.fivexx} of ${appLog.requests} logged responses (${appLog.lines} log lines)`,
      ),
    ];
    const allChecks = [
      ...flowO.checks,
      ...webhookO.checks.map((c) => ({ ...c, name: `webhook phase: ${c.name}` })),
      ...yardChecks,
      ...final,
    ];
    const failed = allChecks.filter((c) => !c.ok);
    const passed = failed.length === 0;

    const rawMed = med((x) => x.raw_rps);
    const ormMed = med((x) => x.typeorm_rps);
    const flowsMed = med((x) => x.flows_per_s);
    const rawPerFlow = med((x) => x.raw_per_flow);
    const ormPerFlow = med((x) => x.typeorm_per_flow);
    const cpuPerFlow = med((x) => x.cpu_raw_per_flow);
    const walPerFlow = med((x) => x.wal_raw_per_flow);
    const syscallsPerFlow = med((x) => x.syscalls_raw_per_flow);
    const syscallsMed = (k: 'raw' | 'typeorm' | 'flow') =>
      Math.round(median(perRound.map((x) => x.syscalls[k])) * 10) / 10;
    const walMed = (k: 'raw' | 'typeorm' | 'flow') =>
      Math.round(median(perRound.map((x) => x.wal_bytes[k])));
    const cpuMed = (k: 'raw' | 'typeorm' | 'flow', part: 'processMs' | 'postgresMs') =>
      Math.round(median(perRound.map((x) => x.cpu_ms[k][part])) * 100) / 100;
    const rssMax = Math.max(0, ...rounds.map((x) => x.rss.max.app ?? 0));
    const m = rounds[mid].flow.result;
    const step = (s: 'create' | 'delegate_payment' | 'complete') =>
      `${m.steps[s].latencyMs.p50}/${m.steps[s].latencyMs.p95}/${m.steps[s].latencyMs.p99}`;
    const errors = Number(flowO.result.errors) + Number(flowO.result.timeouts);

    log(`\nfull flow, median round (#${mid + 1}):`);
    for (const line of flowO.lines ?? []) {
      log(line);
    }
    log(
      `\nrounds: ${perRound
        .map(
          (x) =>
            `#${x.round} raw ${x.raw_rps} ÷ ${x.flows_per_s} = ${x.raw_per_flow}, TypeORM ${x.typeorm_rps} ÷ ${x.flows_per_s} = ${x.typeorm_per_flow} (complete p50/p99 ${x.complete_p50_ms}/${x.complete_p99_ms} ms, RSS max ${x.app_rss_max_mb} MB)`,
        )
        .join('; ')}`,
    );
    const soakSeries = soak?.rss.series.app ?? [];
    const minuteAvg = (from: number, to: number) => {
      const pts = soakSeries.filter(([t]) => t >= from && t < to).map(([, mb]) => mb);
      return pts.length ? Math.round(pts.reduce((a, b) => a + b, 0) / pts.length) : 0;
    };
    const soakLine = soak
      ? `\n  soak ${opts.soakS} s: ${rate(soak.run.result.flowsCompletedInWindow, opts.soakS)} flows/s (${soak.run.result.flowsCompleted} flows); app RSS at start ${soakSeries[0]?.[1] ?? 0} MB, at end ${soakSeries[soakSeries.length - 1]?.[1] ?? 0} MB, max ${soak.rss.max.app} MB${opts.soakS >= 120 ? `; first minute avg ${minuteAvg(0, 60)} MB, last minute avg ${minuteAvg(opts.soakS - 60, opts.soakS + 1)} MB` : ''}`
      : '';
    // The issue's four goals, as measured in this run (bench/README.md "Production build").
    const webhookP99 = Number(webhookO.extra.settle_to_received_p99_ms);
    const webhookTarget = Number(webhookO.extra.target_per_s);
    const webhookHeld = webhookO.extra.held_rate === 'yes';
    const rssPeak = Math.max(rssMax, soak?.rss.max.app ?? 0);
    const soakGrowth =
      soak && opts.soakS >= 300
        ? { first: minuteAvg(0, 60), last: minuteAvg(opts.soakS - 60, opts.soakS + 1) }
        : null;
    const goals: { goal: string; measured: string; met: boolean | null }[] = [
      {
        goal: 'one flow ≤ 16 raw-yardstick requests',
        measured: `${rawPerFlow} (in CPU, app + Postgres: ${cpuPerFlow})`,
        met: rawPerFlow <= 16,
      },
      {
        goal: 'complete p99 ≤ 100 ms at half of maximum load',
        measured: `${halfComplete.p99} ms, flows arriving at ${halfRate}/s`,
        met: halfComplete.p99 <= 100,
      },
      {
        goal: 'settle → webhook p99 ≤ 200 ms at 100 settlements/s',
        measured: `${webhookP99} ms at ${String(webhookO.extra.achieved_per_s)}/s (target ${webhookTarget}/s)`,
        met: webhookP99 <= 200 && webhookTarget >= 100 && webhookHeld,
      },
      {
        goal: 'app RSS ≤ 300 MB under load, no growth over a 5-minute soak',
        measured: soakGrowth
          ? `max ${rssPeak} MB; soak first minute ${soakGrowth.first} MB, last minute ${soakGrowth.last} MB`
          : `max ${rssPeak} MB; growth not measured (BENCH_SOAK_S < 300)`,
        // No growth: the last minute's average within 5 % of the first's.
        met: rssPeak > 300 ? false : soakGrowth ? soakGrowth.last <= soakGrowth.first * 1.05 : null,
      },
    ];
    const goalText = (met: boolean | null) => (met === null ? 'n/a' : met ? 'met' : 'NOT met');
    log(
      `\ngoals (production build, this run):\n${goals
        .map((g) => `  ${goalText(g.met).padEnd(7)} ${g.goal}: ${g.measured}`)
        .join('\n')}`,
    );
    log(`\nchecks:\n${checkLines(allChecks)}`);
    log(
      `\nsummary (production build): ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GB, node ${process.version}` +
        `\n  load average (1 min) ${loadBefore.toFixed(2)} before the run, ${loadavg()[0].toFixed(2)} after (${cpus().length} CPUs; the bench itself adds about 2 while it runs)` +
        `\n  app: node dist/main.js, MODE=live, LOG_LEVEL=info (JSON, ${appLog.lines} lines), rate limits on (live defaults), ${world.merchantKeys?.length} merchant keys, ${world.buyers.length} buyer keys` +
        `\n  yardsticks (median of ${opts.rounds} rounds): raw pg ${rawMed} req/s, TypeORM ${ormMed} req/s` +
        `\n  full flow: ${flowsMed} flows/s (median); one flow = ${rawPerFlow} raw-yardstick requests, ${ormPerFlow} TypeORM-yardstick requests (medians of the rounds' ratios)` +
        `\n  CPU per unit (medians): raw yardstick ${cpuMed('raw', 'processMs')} ms + Postgres ${cpuMed('raw', 'postgresMs')} ms per request, TypeORM ${cpuMed('typeorm', 'processMs')} + ${cpuMed('typeorm', 'postgresMs')} ms, flow: app ${cpuMed('flow', 'processMs')} ms + Postgres ${cpuMed('flow', 'postgresMs')} ms; one flow = ${cpuPerFlow} raw-yardstick requests in CPU` +
        `\n  WAL per unit (medians): raw yardstick ${walMed('raw')} B per request, TypeORM ${walMed('typeorm')} B, flow ${walMed('flow')} B; one flow = ${walPerFlow} raw-yardstick requests in WAL` +
        `\n  read/write syscalls per unit (medians): raw yardstick ${syscallsMed('raw')} per request, TypeORM ${syscallsMed('typeorm')}, app ${syscallsMed('flow')} per flow; one flow = ${syscallsPerFlow} raw-yardstick requests in syscalls` +
        `\n  per step p50/p95/p99 ms (median round): create ${step('create')}, delegate_payment ${step('delegate_payment')}, complete ${step('complete')}` +
        `\n  5xx: ${flowO.extra.http_5xx} (client), ${appLog.fivexx} (app log); non-2xx ${flowO.result.non2xx}; connection errors/timeouts ${errors}` +
        `\n  app RSS: ${idle.app} MB idle, max ${rssMax} MB under load (node dist/main.js alone)` +
        soakLine +
        `\n  checks: ${allChecks.length - failed.length}/${allChecks.length} passed` +
        `\n  ${passed ? 'PASS' : 'FAIL'}; database ${new URL(opts.databaseUrl).pathname.slice(1)} kept for inspection`,
    );

    const file = join(RESULTS, 'production.json');
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          started_at: startedAt.toISOString(),
          finished_at: new Date().toISOString(),
          passed,
          cpus: cpus().length,
          load_average_1m: { before: loadBefore, after: loadavg()[0] },
          node: process.version,
          options: {
            duration_s: opts.durationS,
            flow_duration_s: opts.flowDurationS,
            warmup_s: opts.warmupS,
            rounds: opts.rounds,
            connections: opts.connections,
            flow_agents: opts.flowAgents,
            buyers: opts.buyers,
            merchant_keys: world.merchantKeys?.length,
            soak_s: opts.soakS,
          },
          raw_rps_median: rawMed,
          typeorm_rps_median: ormMed,
          flows_per_s_median: flowsMed,
          raw_per_flow: rawPerFlow,
          typeorm_per_flow: ormPerFlow,
          cpu_raw_per_flow: cpuPerFlow,
          wal_raw_per_flow: walPerFlow,
          syscalls_raw_per_flow: syscallsPerFlow,
          rounds: perRound,
          rss_idle_mb: idle,
          rss_max_mb: rssMax,
          soak: soak
            ? {
                flows: soak.run.result.flowsCompleted,
                rss_start_mb: soakSeries[0]?.[1] ?? 0,
                rss_end_mb: soakSeries[soakSeries.length - 1]?.[1] ?? 0,
                rss_max_mb: soak.rss.max.app,
                rss_series_mb: soakSeries,
              }
            : null,
          app_log: appLog,
          flow: flowO.json,
          half_load: {
            flows_per_s_target: halfRate,
            flows_per_s: rate(half.result.flowsCompletedInWindow, half.result.durationS),
            steps_ms: {
              create: half.result.steps.create.latencyMs,
              delegate_payment: half.result.steps.delegate_payment.latencyMs,
              complete: halfComplete,
            },
          },
          webhook: { mode: 'sandbox', ...webhookO.extra, ...webhookO.json },
          goals,
          checks: allChecks,
        },
        null,
        2,
      )}\n`,
    );
    log(`results: ${join('bench', 'results', 'production.json')}`);
    return passed ? 0 : 1;
  } finally {
    load?.stop();
    await db.end().catch(() => undefined);
    await raw?.stop();
    await orm?.stop();
    await app?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:prod failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
