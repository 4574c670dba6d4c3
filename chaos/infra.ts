/**
 * The chaos run's own processes (docs/testing.md "Chaos run"): a PostgreSQL cluster and a Redis of
 * its own on other ports (never the developer's 5432/6379), the gateway simulator with a state
 * file, and the app as users run it (compiled JavaScript, `node …/dist/main.js`). Everything lives
 * in one temporary directory that teardown() removes, after it has killed every process it started.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

import { transformFileSync } from '@swc/core';

export const ROOT = join(__dirname, '..');
const PG_BIN = '/usr/lib/postgresql/15/bin';

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      out.push(...tsFiles(p));
    } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) {
      out.push(p);
    }
  }
  return out;
}

/**
 * src/ and gateway-sim/ as CommonJS with decorator metadata (the options of .swcrc), into
 * `dir/dist` and `dir/gateway-sim`; views, locales, openapi and node_modules are linked beside
 * them, so the paths the code resolves from __dirname (`../views`) hold as in the repository.
 * A few seconds, and unaffected by a half-edited file elsewhere that would stop `tsc`.
 */
export function compile(dir: string): void {
  const options = {
    swcrc: false,
    sourceMaps: false,
    jsc: {
      parser: { syntax: 'typescript' as const, decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022' as const,
      keepClassNames: true,
    },
    module: { type: 'commonjs' as const },
  };
  const parts: [string, string][] = [
    ['src', 'dist'],
    ['gateway-sim', 'gateway-sim'],
  ];
  for (const [from, to] of parts) {
    for (const file of tsFiles(join(ROOT, from))) {
      const out = join(dir, to, relative(join(ROOT, from), file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, transformFileSync(file, options).code);
    }
  }
  // gateway-sim imports ../src/…: the compiled src is dist.
  symlinkSync(join(dir, 'dist'), join(dir, 'src'));
  symlinkSync(join(ROOT, 'gateway-sim', 'assets'), join(dir, 'gateway-sim', 'assets'));
  for (const name of ['views', 'locales', 'openapi', 'node_modules', 'package.json']) {
    symlinkSync(join(ROOT, name), join(dir, name));
  }
}

/** Children this run started, killed by teardown whatever happened. */
const children = new Set<ChildProcess>();

export function spawnLogged(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): ChildProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { env, stdio: ['ignore', fd, fd] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function killAllChildren(): void {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) {
      return;
    }
    await sleep(200);
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok;
}

/** A cluster of our own, run as the postgres user (initdb refuses root). */
export class Postgres {
  readonly dataDir: string;
  readonly url: string;

  constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly logFile: string,
  ) {
    this.dataDir = join(dir, 'pg');
    this.url = `postgres://postgres@127.0.0.1:${port}/chaos`;
  }

  private asPostgres(args: string[]): ReturnType<typeof spawnSync> {
    const runAs = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
    const [cmd, ...rest] = [...runAs, ...args];
    return spawnSync(cmd, rest, { encoding: 'utf8' });
  }

  init(): void {
    if (process.getuid?.() === 0) {
      chownSync(this.dir, uidOf('postgres'), gidOf('postgres'));
      chmodSync(this.dir, 0o755);
    }
    const r = this.asPostgres([
      `${PG_BIN}/initdb`,
      '-D',
      this.dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    if (r.status !== 0) {
      throw new Error(`initdb failed: ${String(r.stderr)}`);
    }
  }

  start(): void {
    const r = this.asPostgres([
      `${PG_BIN}/pg_ctl`,
      '-D',
      this.dataDir,
      '-l',
      this.logFile,
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      'start',
    ]);
    if (r.status !== 0) {
      throw new Error(`pg_ctl start failed: ${String(r.stderr)}${String(r.stdout)}`);
    }
  }

  /** As a crash: no checkpoint, every connection cut (`pg_ctl stop -m immediate`). */
  stopImmediate(): void {
    this.asPostgres([`${PG_BIN}/pg_ctl`, '-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
  }

  running(): boolean {
    return this.asPostgres([`${PG_BIN}/pg_ctl`, '-D', this.dataDir, 'status']).status === 0;
  }
}

function idOf(flag: '-u' | '-g', user: string): number {
  const r = spawnSync('id', [flag, user], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`no user ${user} to run PostgreSQL as (initdb refuses root)`);
  }
  return Number(r.stdout.trim());
}
const uidOf = (u: string) => idOf('-u', u);
const gidOf = (u: string) => idOf('-g', u);

/** A Redis of our own; `persist` adds an append-only file (a variant: jobs survive its kill). */
export class RedisServer {
  private child: ChildProcess | null = null;
  readonly url: string;

  constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly logFile: string,
    private readonly persist: boolean,
  ) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir];
    args.push(
      ...(this.persist
        ? ['--appendonly', 'yes', '--save', '']
        : ['--save', '', '--appendonly', 'no']),
    );
    this.child = spawnLogged('redis-server', args, process.env, this.logFile);
    await waitUntil('redis', () => this.ping(), 15_000);
  }

  private ping(): Promise<boolean> {
    return new Promise((resolve) => {
      const r = spawnSync('redis-cli', ['-p', String(this.port), 'ping'], { encoding: 'utf8' });
      resolve(r.stdout.trim() === 'PONG');
    });
  }

  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  get up(): boolean {
    return this.child !== null;
  }
}

/** A process we start, kill, pause and restart (the app, the simulator). */
export class Service {
  private child: ChildProcess | null = null;
  paused = false;

  constructor(
    readonly name: string,
    private readonly cmd: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly logFile: string,
    private readonly readyUrl: string,
    private readonly readyTimeoutMs: number,
  ) {}

  async start(): Promise<void> {
    this.child = spawnLogged(this.cmd, this.args, this.env, this.logFile);
    const child = this.child;
    await waitUntil(
      this.name,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`${this.name} exited (code ${child.exitCode})`);
        }
        return httpOk(this.readyUrl);
      },
      this.readyTimeoutMs,
    );
  }

  /** Started but not necessarily ready (the app waits for its dependencies). */
  spawnOnly(): void {
    this.child = spawnLogged(this.cmd, this.args, this.env, this.logFile);
  }

  waitReady(timeoutMs = this.readyTimeoutMs): Promise<void> {
    return waitUntil(this.name, () => httpOk(this.readyUrl), timeoutMs);
  }

  get up(): boolean {
    const c = this.child;
    return c !== null && c.exitCode === null && c.signalCode === null;
  }

  kill(): void {
    if (this.child) {
      this.child.kill('SIGCONT');
      this.child.kill('SIGKILL');
    }
    this.child = null;
    this.paused = false;
  }

  pause(): void {
    if (this.up && !this.paused) {
      this.child?.kill('SIGSTOP');
      this.paused = true;
    }
  }

  resume(): void {
    if (this.paused) {
      this.child?.kill('SIGCONT');
      this.paused = false;
    }
  }

  /** SIGTERM, then SIGKILL after a grace period. */
  async stop(graceMs = 10_000): Promise<void> {
    const c = this.child;
    if (!c || !this.up) {
      return;
    }
    this.resume();
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    this.child = null;
  }
}

export function makeWorkDir(): string {
  return mkdtempSync(join(tmpdir(), 'chaos-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
