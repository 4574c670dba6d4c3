import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

import request from 'supertest';

import { randomToken } from '../../src/common/ids';
import { bearer } from '../factories/intent.factory';
import { createMandate } from '../factories/mandate.factory';
import { startApp, TestApp, testDatabaseUrl } from '../support/app';
import { startTestGateway, TEST_GATEWAY_KEYS, TestGateway } from '../support/gateway';
import { createQuote, waitFor } from '../support/gateway-app';
import { SeededWorkspace, seedWorkspace } from '../support/seed';
import { TEST_REDIS_URL } from '../support/test-db';

const ROOT = join(__dirname, '..', '..');

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

interface Child {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * The service as its own process (src/main.ts under ts-node), on the gateway rail against the
 * simulator, with this file's database. Nothing in production code knows it is being tested.
 */
async function startService(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  let out = '';
  const proc = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', 'src/main.ts'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor(
    'the service to listen',
    () => /listening on/.test(out) || proc.exitCode !== null,
    120_000,
  );
  if (proc.exitCode !== null) {
    throw new Error(`the service exited: ${out}`);
  }
  return { proc, url: `http://127.0.0.1:${port}`, output: () => out };
}

async function stop(child: Child | null, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) {
    return;
  }
  const exited = new Promise((r) => child.proc.once('exit', r));
  child.proc.kill(signal);
  await exited;
}

/**
 * Item 0's crash test (docs/architecture.md "Payment pipeline"): the process is killed (SIGKILL)
 * while its gateway calls are in flight: one after the gateway already moved the money (its answer
 * delayed), one hung at the gateway and failed by it while the service is down. A fresh instance's reconciler asks the
 * gateway and ends each payment exactly once: one settled intent, one receipt, one intent.settled
 * event and one captured payment at the gateway; and for the failed one, one failed intent and no
 * event. Webhooks are not delivered (no URL is set at the simulator), so the reconciler alone does
 * it. Both processes' logs are checked for the key secret and the webhook secret.
 */
describe('a crash between the gateway call and the settlement', () => {
  let t: TestApp;
  let gw: TestGateway;
  let ws: SeededWorkspace;
  let mandateId: string;
  let first: Child | null = null;
  let second: Child | null = null;
  let env: Record<string, string>;

  beforeAll(async () => {
    gw = await startTestGateway();
    // In-process, only to seed the database (no sweeps of its own).
    t = await startApp({ runWorkers: false });
    ws = await seedWorkspace(t);
    mandateId = await createMandate(
      t,
      { workspaceId: ws.workspaceId, agentId: ws.buyer.id },
      { rail: 'upi_otm' },
    );
    env = {
      DATABASE_URL: await testDatabaseUrl(),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: `crash${randomToken(6)}`,
      MODE: 'test',
      LOG_LEVEL: 'info',
      RUN_MIGRATIONS: 'false',
      RAIL: 'gateway',
      GATEWAY_API_URL: gw.sim.url,
      GATEWAY_KEY_ID: TEST_GATEWAY_KEYS.keyId,
      GATEWAY_KEY_SECRET: TEST_GATEWAY_KEYS.keySecret,
      GATEWAY_WEBHOOK_SECRET: TEST_GATEWAY_KEYS.webhookSecret,
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      RATE_LIMIT_CREDENTIAL_PER_S: '1000',
    };
  }, 60_000);
  afterAll(async () => {
    await stop(first, 'SIGKILL');
    await stop(second, 'SIGKILL');
    await t?.close();
    await gw?.close();
  });

  const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
    (await t.db.query<T[]>(sql, params))[0];
  const count = async (sql: string, params: unknown[]) =>
    (await one<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).n;

  const paymentsAtGateway = () => gw.sim.control.state().payments;

  it('ends each payment exactly once after a fresh instance reconciles', async () => {
    const succeeded = await createQuote(t, ws, 51_000);
    const failed = await createQuote(t, ws, 52_000);

    // The first instance waits long for the gateway (20 s), so it is surely still waiting when killed.
    first = await startService({
      ...env,
      GATEWAY_TIMEOUT_MS: '20000',
      RAIL_RECONCILE_AFTER_MS: '30000',
    });
    const pay = (quoteId: string) =>
      request(first!.url)
        .post(`/v1/pay/quotes/${quoteId}/pay`)
        .set(bearer(ws.buyer.credential))
        .send({ mandate_id: mandateId })
        .then(
          (r) => r.status,
          () => 'killed' as const,
        );

    // 1. The gateway captures at once but answers 15 s later.
    gw.sim.control.next('succeed', 15_000);
    const answerA = pay(succeeded);
    await waitFor(
      'the gateway to capture',
      () => paymentsAtGateway().some((p) => p.amount === 51_000 && p.status === 'captured'),
      30_000,
    );
    // 2. The next debit hangs at the gateway (the payment exists, not yet decided).
    gw.sim.control.next('hang');
    const answerB = pay(failed);
    await waitFor(
      'the second debit to reach the gateway',
      () => paymentsAtGateway().some((p) => p.amount === 52_000 && p.status === 'created'),
      30_000,
    );

    // Money moved at the gateway for the first; the second is in flight; nothing is recorded.
    const intentOf = (quoteId: string) =>
      one<{ id: string; status: string }>(
        `SELECT id, status FROM payment_intents WHERE source_kind = 'quote' AND source_id = $1`,
        [quoteId],
      );
    expect((await intentOf(succeeded)).status).toBe('processing');
    expect((await intentOf(failed)).status).toBe('processing');

    await stop(first, 'SIGKILL');
    expect(await answerA).toBe('killed');
    expect(await answerB).toBe('killed');
    expect((await intentOf(succeeded)).status).toBe('processing');
    expect(await one('SELECT status FROM quotes WHERE id = $1', [succeeded])).toEqual({
      status: 'processing',
    });
    // While the service is down, the gateway fails the hung payment.
    expect(gw.sim.control.release('fail')).toBe(1);
    await waitFor('the gateway to fail the second payment', () =>
      paymentsAtGateway().some((p) => p.amount === 52_000 && p.status === 'failed'),
    );

    // A fresh instance (a shorter timeout this time) reconciles what the dead one left.
    second = await startService({
      ...env,
      GATEWAY_TIMEOUT_MS: '1000',
      RAIL_RECONCILE_AFTER_MS: '1500',
    });
    await waitFor(
      'the reconciler to end both payments',
      async () =>
        (await intentOf(succeeded)).status !== 'processing' &&
        (await intentOf(failed)).status !== 'processing',
      60_000,
    );

    const a = await one<{ id: string; status: string; receipt_id: string; rail_reference: string }>(
      `SELECT id, status, receipt_id, rail_reference FROM payment_intents WHERE source_id = $1`,
      [succeeded],
    );
    expect(a.status).toBe('settled');
    expect(await count('payment_intents WHERE source_id = $1', [succeeded])).toBe(1);
    expect(await count('chain_entries WHERE chain_id = $1', [a.receipt_id])).toBe(1);
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [a.id]),
    ).toBe(1);
    expect(await count('rail_transfers WHERE intent_id = $1', [a.id])).toBe(1);
    expect(await one('SELECT status FROM quotes WHERE id = $1', [succeeded])).toEqual({
      status: 'paid',
    });
    const capturedA = paymentsAtGateway().filter((p) => p.amount === 51_000);
    expect(capturedA).toHaveLength(1);
    expect(capturedA[0]).toMatchObject({ status: 'captured', id: a.rail_reference });

    const b = await one<{ id: string; status: string; decline_code: string }>(
      `SELECT id, status, decline_code FROM payment_intents WHERE source_id = $1`,
      [failed],
    );
    expect(b).toMatchObject({ status: 'failed', decline_code: 'payment_failed' });
    expect(await count('payment_intents WHERE source_id = $1', [failed])).toBe(1);
    expect(await count(`outbox_events WHERE subject_id = $1`, [b.id])).toBe(0);
    expect(await one('SELECT status FROM quotes WHERE id = $1', [failed])).toEqual({
      status: 'open',
    });
    expect(paymentsAtGateway().filter((p) => p.amount === 52_000)).toEqual([
      expect.objectContaining({ status: 'failed' }),
    ]);

    // Still exactly once a while later (further sweeps find nothing to do).
    await new Promise((r) => setTimeout(r, 2000));
    expect(
      await count(`outbox_events WHERE subject_id = $1 AND type = 'intent.settled'`, [a.id]),
    ).toBe(1);
    expect(paymentsAtGateway().filter((p) => p.amount === 51_000)).toHaveLength(1);

    // Neither process ever logged a secret.
    for (const log of [first.output(), second.output()]) {
      expect(log).not.toContain(TEST_GATEWAY_KEYS.keySecret);
      expect(log).not.toContain(TEST_GATEWAY_KEYS.webhookSecret);
    }
    await stop(second, 'SIGTERM');
  }, 300_000);
});
