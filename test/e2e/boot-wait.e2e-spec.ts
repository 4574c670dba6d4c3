import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';

import { Client } from 'pg';

import { AppConfig, loadConfig } from '../../src/config/app.config';
import { preflight } from '../../src/database/preflight';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { TEST_REDIS_URL } from '../support/test-db';

/**
 * The process survives its dependencies at boot (docs/operations.md "Boot"; issue 40 item 3):
 * with PostgreSQL or Redis not there yet, the boot waits, one line per attempt, and comes up
 * once they are (here: a TCP proxy to the real server starts on a port that refused until then);
 * past BOOT_DEPENDENCY_WAIT_MS it gives up with one clear line and the process exits non-zero.
 */

const ROOT = join(__dirname, '..', '..');
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** A TCP proxy on `port` to 127.0.0.1:`to`: the dependency "comes up" at that address. */
async function proxy(port: number, to: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(to, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    close: async () => {
      for (const s of sockets) {
        s.destroy();
      }
      await new Promise((r) => server.close(r));
    },
  };
}

const databaseName = () => `payments_test_boot_${randomBytes(4).toString('hex')}`;

async function dropDatabase(name: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

function configWith(over: Partial<AppConfig>): AppConfig {
  return { ...loadConfig({ MODE: 'test', REDIS_URL: TEST_REDIS_URL }), ...over };
}

const until = async (what: string, fn: () => boolean, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('boot: waits for PostgreSQL and Redis (bounded), then comes up or exits', () => {
  const created: string[] = [];
  afterAll(async () => {
    for (const name of created) {
      await dropDatabase(name);
    }
  });

  it('waits for PostgreSQL that is not there yet, one line per attempt, then creates the database', async () => {
    const port = await freePort();
    const name = databaseName();
    created.push(name);
    const lines: string[] = [];
    const booting = preflight(
      configWith({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/${name}` }),
      { waitMs: 30_000, retryMs: 200, log: (l) => lines.push(l) },
    );
    let done = false;
    void booting.then(
      () => (done = true),
      () => (done = true),
    );
    await until('three attempts', () => lines.length >= 3);
    expect(done).toBe(false);
    expect(lines[0]).toBe(
      `waiting for PostgreSQL at 127.0.0.1:${port}: connection refused; retrying in 0.2 s`,
    );
    const pg = await proxy(port, 5432);
    try {
      await booting;
      expect(await databaseExists(name)).toBe(true);
    } finally {
      await pg.close();
    }
  });

  it('waits for Redis that is not there yet, then comes up', async () => {
    const port = await freePort();
    const redisPort = Number(new URL(TEST_REDIS_URL).port || 6379);
    const lines: string[] = [];
    const booting = preflight(
      configWith({
        databaseUrl: `postgres://postgres@127.0.0.1:5432/${created[0]}`,
        redisUrl: `redis://127.0.0.1:${port}`,
      }),
      { waitMs: 30_000, retryMs: 200, log: (l) => lines.push(l) },
    );
    await until('two attempts', () => lines.length >= 2);
    expect(lines[0]).toBe(
      `waiting for Redis at 127.0.0.1:${port}: connection refused; retrying in 0.2 s`,
    );
    const redis = await proxy(port, redisPort);
    try {
      await booting;
    } finally {
      await redis.close();
    }
  });

  it('gives up after the bound with one clear message', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const started = Date.now();
    const err = (await preflight(
      configWith({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/${databaseName()}` }),
      { waitMs: 1200, retryMs: 300, log: (l) => lines.push(l) },
    ).catch((e: unknown) => e)) as Error & { preflight?: boolean };
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(Error);
    expect(err.preflight).toBe(true);
    expect(err.message).toMatch(
      new RegExp(
        `^Cannot reach PostgreSQL at postgres://postgres@127\\.0\\.0\\.1:${port}/\\S+ after waiting 1\\.2 s \\(connection refused\\)\\. Start it`,
      ),
    );
    expect(took).toBeGreaterThanOrEqual(1200);
    expect(took).toBeLessThan(6000);
    expect(lines.length).toBeGreaterThanOrEqual(3);
  });

  it('a failure waiting cannot fix (a wrong password) is answered at once', async () => {
    const lines: string[] = [];
    const started = Date.now();
    const err = (await preflight(
      configWith({ databaseUrl: `postgres://no_such_role_h5@127.0.0.1:5432/${databaseName()}` }),
      { waitMs: 30_000, retryMs: 200, log: (l) => lines.push(l) },
    ).catch((e: unknown) => e)) as Error & { preflight?: boolean };
    expect(err.preflight).toBe(true);
    expect(err.message).toMatch(
      /^Cannot reach PostgreSQL at .* \(.*no_such_role_h5.*\)\. Start it/,
    );
    expect(err.message).not.toContain('after waiting');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(lines).toEqual([]);
  });

  describe('the process (src/main.ts)', () => {
    let child: ChildProcess | null = null;
    afterEach(() => {
      if (child && child.exitCode === null) {
        child.kill('SIGKILL');
      }
      child = null;
    });

    function start(env: Record<string, string>): {
      proc: ChildProcess;
      out: () => string;
      exited: Promise<number | null>;
    } {
      let out = '';
      const proc = spawn(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', join(ROOT, 'src', 'main.ts')],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            MODE: 'test',
            REDIS_URL: TEST_REDIS_URL,
            QUEUE_PREFIX: `tboot${randomBytes(4).toString('hex')}`,
            LOG_LEVEL: 'warn',
            LOG_PRETTY: 'false',
            RUN_WORKERS: 'false',
            ...env,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child = proc;
      proc.stdout?.on('data', (b: Buffer) => (out += b.toString()));
      proc.stderr?.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
      return { proc, out: () => out, exited };
    }

    it('exits non-zero with the message once the bound has passed', async () => {
      const port = await freePort();
      const { out, exited } = start({
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/${databaseName()}`,
        BOOT_DEPENDENCY_WAIT_MS: '1500',
        PORT: String(await freePort()),
      });
      expect(await exited).toBe(1);
      expect(out()).toContain(
        `waiting for PostgreSQL at 127.0.0.1:${port}: connection refused; retrying in`,
      );
      expect(out()).toMatch(
        /Cannot reach PostgreSQL at .* after waiting 1\.5 s \(connection refused\)/,
      );
    }, 60_000);
  });

  it('waits for PostgreSQL, then the app boots on it and its readiness probe answers 200', async () => {
    // As main.ts: preflight first, then Nest (here the test harness) on the same database URL.
    const real = new URL(await testDatabaseUrl());
    const port = await freePort();
    const proxied = new URL(real.toString());
    proxied.port = String(port);
    const lines: string[] = [];
    const booting = preflight(configWith({ databaseUrl: proxied.toString() }), {
      waitMs: 30_000,
      retryMs: 200,
      log: (l) => lines.push(l),
    });
    await until('two attempts', () => lines.length >= 2);
    const pg = await proxy(port, Number(real.port || 5432));
    let app: TestApp | null = null;
    try {
      await booting;
      app = await startApp({ databaseUrl: proxied.toString() });
      const ready = await fetch(`${app.url}/health/ready`);
      expect(ready.status).toBe(200);
    } finally {
      await app?.close();
      await pg.close();
    }
  });
});
