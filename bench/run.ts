// `npm run bench`: boots the real app in this process on a fresh database (payments_bench),
// seeds a workspace through the services, drives each scenario with autocannon from a child
// process for BENCH_DURATION_S seconds, checks the database afterwards and writes
// bench/results/latest.json. Exit code 0 only when every scenario ran and every check passed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';

import Redis from 'ioredis';
import { Client } from 'pg';

import { Http } from './http';
import { LoadGenerator } from './load-client';
import { checkLines, resultJson, scenarioTable } from './report';
import { BenchContext, Check, finalChecks, ScenarioOutcome, SCENARIOS } from './scenarios';
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
  let load: LoadGenerator | undefined;
  const db = new Client({ connectionString: opts.databaseUrl });
  try {
    running = await bootApp(opts);
    await db.connect();
    load = LoadGenerator.start();
    const http = new Http(running.url);
    const seedStarted = Date.now();
    const world = await seedWorld(running.app, http, opts.buyers);
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
    };
    const scenarios = SCENARIOS.filter((s) => opts.only === null || opts.only.includes(s.id));
    const outcomes: ScenarioOutcome[] = [];
    let crashed: string | null = null;
    for (const scenario of scenarios) {
      log(`\n[${scenario.id}] ${scenario.title}: ${scenario.measures}`);
      try {
        const outcome = await scenario.run(ctx);
        outcomes.push(outcome);
        const extra = Object.entries(outcome.extra)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ');
        log(`${scenarioTable([outcome]).split('\n')[2]}${extra ? `\n  ${extra}` : ''}`);
        for (const line of outcome.lines ?? []) {
          log(line);
        }
        log(checkLines(outcome.checks));
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
      outcomes.length === scenarios.length &&
      failed.length === 0;

    log(`\n${scenarioTable(outcomes)}`);
    log(`\nafter the run:\n${checkLines(final)}`);
    const completes = outcomes.find((o) => o.id === '5');
    const flow = outcomes.find((o) => o.id === '7');
    const env = await machine(db, opts.redisUrl);
    log(
      `\nsummary: ${env.cpus} × ${env.cpu_model}, ${env.memory_gb} GB, node ${env.node}, Postgres ${env.postgres}, Redis ${env.redis}` +
        (completes
          ? `\n  full payments: ${completes.extra.completes_per_s} completes/s (${completes.extra.completed} in ${completes.result.elapsedS} s, p95 ${completes.result.latencyMs.p95} ms)`
          : '') +
        (flow
          ? `\n  full flow: ${flow.extra.flows_per_s} flows/s (${flow.extra.agents} agents, ${flow.extra.buyers} buyers), p50/p99 ms create ${flow.extra.create_p50_p99_ms}, delegate_payment ${flow.extra.delegate_p50_p99_ms}, complete ${flow.extra.complete_p50_p99_ms}; 5xx: ${flow.extra.http_5xx}`
          : '') +
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
            only: opts.only,
            database_pool_max: running.config.databasePoolMax,
            log_level: running.config.logLevel,
          },
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
