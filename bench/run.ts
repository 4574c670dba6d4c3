// `npm run bench`: boots the real app in this process on a fresh database (payments_bench),
// seeds a workspace through the services, drives each scenario with autocannon from a child
// process for BENCH_DURATION_S seconds, checks the database afterwards and writes
// bench/results/latest.json. Exit code 0 only when every scenario ran and every check passed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';

import Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { BaselineApp, startBaseline } from './baseline';
import { Http } from './http';
import { LoadGenerator } from './load-client';
import { CpuProfile, CpuProfiler, profileLines, summarise } from './profile';
import { checkLines, resultJson, rps, scenarioTable } from './report';
import { rssMb, RssSampler } from './rss';
import { BenchContext, Check, finalChecks, ScenarioOutcome, selectedScenarios } from './scenarios';
import { seedWorld } from './seed';
import { applyAppEnv, benchOptions, bootApp, RunningApp } from './setup';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

interface Machine {
  cpus: number;
  cpu_model: string;
  memory_gb: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
}

async function machine(db: Client, redisUrl: string): Promise<Machine> {
  const { rows } = await db.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const info = await redis.info('server').finally(() => redis.disconnect());
  const cpu = cpus();
  return {
    cpus: cpu.length,
    cpu_model: cpu[0]?.model ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    os: `${osType()} ${release()}`,
    node: process.version,
    postgres: rows[0].v,
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
  };
}

async function main(): Promise<number> {
  const opts = benchOptions();
  applyAppEnv(opts);
  const startedAt = new Date();
  log(
    `bench: ${opts.durationS} s per scenario, ${opts.connections} connections, database ${new URL(opts.databaseUrl).pathname.slice(1)} (recreated)`,
  );

  let running: RunningApp | undefined;
  let baseline: BaselineApp | undefined;
  let load: LoadGenerator | undefined;
  const db = new Client({ connectionString: opts.databaseUrl });
  try {
    running = await bootApp(opts);
    baseline = await startBaseline(running.app.get(DataSource));
    await db.connect();
    load = LoadGenerator.start();
    const http = new Http(running.url);
    const seedStarted = Date.now();
    const world = await seedWorld(running.app, http, opts.buyers);
    const rssIdle = rssMb();
    log(
      `app on ${running.url}; seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s (1 seller + 40 listed sellers, ${world.buyers.length} buyer(s) with an active mandate)`,
    );

    const ctx: BenchContext = {
      opts,
      baseUrl: running.url,
      http,
      db,
      world,
      load,
      completedUnmeasured: 0,
      baselineUrl: baseline.url,
      pgListen: running.config.pgListen,
      rss: new RssSampler(() => ({
        app: process.pid,
        ...(ctx.instance2 ? { instance2: ctx.instance2.pid } : {}),
      })),
    };
    const scenarios = selectedScenarios(opts);
    const outcomes: ScenarioOutcome[] = [];
    let crashed: string | null = null;
    for (const scenario of scenarios) {
      log(`\n[${scenario.id}] ${scenario.title}: ${scenario.measures}`);
      try {
        ctx.rss.start();
        // BENCH_CPU_PROFILE=<scenario id>: V8's profile of this process while that scenario runs.
        const profiler = process.env.BENCH_CPU_PROFILE === scenario.id ? new CpuProfiler() : null;
        await profiler?.start();
        const ran = await scenario.run(ctx);
        const profile: CpuProfile | undefined = await profiler?.stop();
        const rss = ctx.rss.stop();
        if (profile) {
          mkdirSync(join(__dirname, 'results'), { recursive: true });
          const file = join(__dirname, 'results', `scenario-${scenario.id}.cpuprofile`);
          writeFileSync(file, JSON.stringify(profile));
          const shares = summarise(profile);
          for (const outcome of Array.isArray(ran) ? ran : [ran]) {
            outcome.lines = [
              ...(outcome.lines ?? []),
              ...profileLines(shares),
              `    (raw: ${file})`,
            ];
          }
        }
        for (const outcome of Array.isArray(ran) ? ran : [ran]) {
          if (!outcome.rssSampled) {
            outcome.extra.rss_max_mb = rss.max.app ?? 0;
            if (rss.max.instance2) {
              outcome.extra.rss_max_mb_instance2 = rss.max.instance2;
            }
          }
          outcomes.push(outcome);
          const extra = Object.entries(outcome.extra)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ');
          log(
            `${scenarioTable([outcome], ctx.baselineRps).split('\n')[2]}${extra ? `\n  ${extra}` : ''}`,
          );
          for (const line of outcome.lines ?? []) {
            log(line);
          }
          log(checkLines(outcome.checks));
        }
      } catch (err) {
        crashed = `scenario ${scenario.id} failed to run: ${(err as Error).stack ?? String(err)}`;
        log(crashed);
        break;
      }
    }
    const final: Check[] = crashed ? [] : await finalChecks(ctx, outcomes);
    const allChecks = [...outcomes.flatMap((o) => o.checks), ...final];
    const failed = allChecks.filter((c) => !c.ok);
    const passed =
      crashed === null &&
      scenarios.length > 0 &&
      scenarios.every((sc) => outcomes.some((o) => o.id === sc.id)) &&
      failed.length === 0;

    log(`\n${scenarioTable(outcomes, ctx.baselineRps)}`);
    log(`\nafter the run:\n${checkLines(final)}`);
    const completes = outcomes.find((o) => o.id === '5');
    const flow = outcomes.find((o) => o.id === '7');
    const half = outcomes.find((o) => o.id === '5h');
    const hooks = outcomes.find((o) => o.id === '8');
    const two = outcomes.find((o) => o.id === '9');
    const soak = outcomes.find((o) => o.id === '10');
    const big = outcomes.find((o) => o.id === '11');
    const b = ctx.baselineRps;
    const rssMax = Math.max(0, ...outcomes.map((o) => Number(o.extra.rss_max_mb ?? 0)));
    const env = await machine(db, opts.redisUrl);
    log(
      `\nsummary: ${env.cpus} × ${env.cpu_model}, ${env.memory_gb} GB, node ${env.node}, Postgres ${env.postgres}, Redis ${env.redis}` +
        (completes
          ? `\n  full payments: ${completes.extra.completes_per_s} completes/s (${completes.extra.completed} in ${completes.result.elapsedS} s, p95 ${completes.result.latencyMs.p95} ms)`
          : '') +
        (flow
          ? `\n  full flow (median of ${flow.extra.rounds} rounds): ${flow.extra.flows_per_s_median} flows/s (${flow.extra.agents} agents, ${flow.extra.buyers} buyers), p50/p99 ms create ${flow.extra.create_p50_p99_ms}, delegate_payment ${flow.extra.delegate_p50_p99_ms}, complete ${flow.extra.complete_p50_p99_ms}; 5xx: ${flow.extra.http_5xx}` +
            `\n  baseline ${b} req/s: one flow = ${flow.extra.baseline_per_flow} baseline requests` +
            (completes && b ? `, one complete = ${(b / rps(completes)).toFixed(1)}` : '')
          : '') +
        (half
          ? `\n  complete at half of max (${half.extra.target_per_s}/s, held: ${half.extra.held_rate}): p50/p99 ${half.extra.complete_p50_p99_ms} ms`
          : '') +
        (hooks
          ? `\n  settle → webhook received at ${hooks.extra.target_per_s}/s (achieved ${hooks.extra.achieved_per_s}/s, held: ${hooks.extra.held_rate}; ${hooks.extra.wake}): p50 ${hooks.extra.settle_to_received_p50_ms} ms, p99 ${hooks.extra.settle_to_received_p99_ms} ms`
          : '') +
        (two
          ? `\n  two instances: ${two.extra.flows_per_s} flows/s vs ${two.extra.one_instance_flows_per_s} on one (× ${two.extra.two_over_one}); RSS ${two.extra.rss_max_mb} + ${two.extra.rss_max_mb_instance2 ?? '?'} MB`
          : '') +
        (soak
          ? `\n  soak ${soak.extra.soak_s} s: RSS ${soak.extra.rss_first_minute_avg_mb} → ${soak.extra.rss_last_minute_avg_mb} MB (max ${soak.extra.rss_max_mb}), heap after GC ${soak.extra.heap_after_gc_before_mb} → ${soak.extra.heap_after_gc_after_mb} MB`
          : '') +
        (big
          ? `\n  complete p50 ${big.extra.p50_small_ms} ms at ${big.extra.intents_small} intents, ${big.extra.p50_big_ms} ms at ${big.extra.intents_big}: × ${big.extra.p50_ratio}`
          : '') +
        `\n  app RSS: ${rssIdle} MB idle after boot and seeding, max ${rssMax} MB under load (this process: app + orchestrator + baseline route + ts-node, whose TypeScript compiler alone is ~50 MB that node dist/main.js does not carry)` +
        `\n  checks: ${allChecks.length - failed.length}/${allChecks.length} passed${crashed ? '; a scenario crashed' : ''}` +
        `\n  ${passed ? 'PASS' : 'FAIL'}; database ${new URL(opts.databaseUrl).pathname.slice(1)} kept for inspection`,
    );

    const dir = join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'latest.json'),
      `${JSON.stringify(
        {
          started_at: startedAt.toISOString(),
          finished_at: new Date().toISOString(),
          passed,
          machine: env,
          options: {
            duration_s: opts.durationS,
            warmup_s: opts.warmupS,
            connections: opts.connections,
            complete_pool: opts.poolSize ?? 'auto',
            buyers: opts.buyers,
            flow_duration_s: opts.flowDurationS,
            flow_agents: opts.flowAgents,
            rounds: opts.rounds,
            webhook_rate: opts.webhookRate ?? 'auto',
            soak_s: opts.soakS,
            seed_intents: opts.seedIntents,
            two_instances: opts.twoInstances,
            pg_listen: running.config.pgListen,
            credential_cache_ttl_ms: running.config.credentialCacheTtlMs,
            only: opts.only,
            database_pool_max: running.config.databasePoolMax,
            log_level: running.config.logLevel,
          },
          baseline_rps_median: ctx.baselineRps ?? null,
          rss_idle_mb: rssIdle,
          scenarios: resultJson(outcomes),
          final_checks: final,
          error: crashed,
        },
        null,
        2,
      )}\n`,
    );
    log(`results: ${join('bench', 'results', 'latest.json')}`);
    return passed ? 0 : 1;
  } finally {
    load?.stop();
    await db.end().catch(() => undefined);
    await baseline?.close();
    await running?.app.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
