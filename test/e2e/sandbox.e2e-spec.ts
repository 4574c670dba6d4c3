import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import request from 'supertest';

import { randomToken } from '../../src/common/ids';
import { SandboxResult, SandboxService } from '../../src/sandbox/sandbox.service';
import { PersonSessionService } from '../../src/web/person-session.service';
import { startApp, TestApp } from '../support/app';
import { TEST_REDIS_URL } from '../support/test-db';

const run = promisify(execFile);

/** Status of a /v1 route for a bearer: 401 = unknown or revoked; 200/403 = the credential resolved. */
async function statusWith(t: TestApp, secret: string): Promise<number> {
  return (await request(t.url).get('/v1/api-keys').set('Authorization', `Bearer ${secret}`)).status;
}

describe(SandboxService.name, () => {
  let t: TestApp;
  let first: SandboxResult;
  let second: SandboxResult;

  beforeAll(async () => {
    t = await startApp();
    first = await t.get(SandboxService).bootstrap();
    second = await t.get(SandboxService).bootstrap();
  });
  afterAll(() => t.close());

  it('reuses the demo workspace and agents', () => {
    expect(second.workspace_id).toBe(first.workspace_id);
    expect(second.seller.agent_id).toBe(first.seller.agent_id);
    expect(second.buyer.agent_id).toBe(first.buyer.agent_id);
    expect(second.person.email).toBe('demo@sandbox.local');
    expect(second.base_url).toBe(t.url);
    expect(second.app_url).toBe(`${t.url}/app`);
  });

  it('publishes one offer at or below ₹2,000 and one above, and reuses one active mandate', async () => {
    expect(second.offers.map((o) => o.unit_paise).sort((a, b) => a - b)).toEqual([45_000, 350_000]);
    const sellers = await request(t.url)
      .get('/v1/pay/sellers?category=food.tea')
      .set('Authorization', `Bearer ${second.buyer.credential}`)
      .expect(200);
    const mine = sellers.body.data.find(
      (s: { agent_id: string }) => s.agent_id === second.seller.agent_id,
    );
    expect(mine.offers.map((o: { sku: string }) => o.sku).sort()).toEqual([
      'sku_tea_1kg',
      'sku_tea_hamper',
    ]);
    expect(second.mandate_id).toBe(first.mandate_id);
    const [mandate] = await t.db.query(
      `SELECT status, buyer_agent_id, authorised_by FROM mandates WHERE id = $1`,
      [second.mandate_id],
    );
    expect(mandate.status).toBe('active');
    expect(mandate.buyer_agent_id).toBe(second.buyer.agent_id);
    expect(mandate.authorised_by).not.toBeNull();
  });

  it('refuses to run in live mode', async () => {
    const sandbox = t.get(SandboxService);
    const config = (sandbox as unknown as { config: { mode: string } }).config;
    config.mode = 'live';
    try {
      await expect(sandbox.bootstrap()).rejects.toThrow(/live mode/);
    } finally {
      config.mode = 'test';
    }
  });

  it('issues fresh secrets on every run', () => {
    expect(second.api_key).toMatch(/^sk_test_/);
    expect(second.seller.credential).toMatch(/^agc_/);
    expect(second.merchant_protocol_key).toMatch(/^acpk_/);
    expect(second.buyer_protocol_key).toMatch(/^acpk_/);
    for (const pick of [
      (r: SandboxResult) => r.api_key,
      (r: SandboxResult) => r.person.password,
      (r: SandboxResult) => r.seller.credential,
      (r: SandboxResult) => r.buyer.credential,
      (r: SandboxResult) => r.merchant_protocol_key,
      (r: SandboxResult) => r.buyer_protocol_key,
    ]) {
      expect(pick(second)).not.toBe(pick(first));
    }
  });

  it('revokes the previous secrets: they get 401 on /v1', async () => {
    expect(await statusWith(t, first.api_key)).toBe(401);
    expect(await statusWith(t, first.seller.credential)).toBe(401);
    expect(await statusWith(t, first.buyer.credential)).toBe(401);
    expect(await statusWith(t, first.merchant_protocol_key)).toBe(401);
    expect(await statusWith(t, first.buyer_protocol_key)).toBe(401);
  });

  it('the new secrets authenticate', async () => {
    expect(await statusWith(t, second.api_key)).toBe(200);
    // Valid credentials of another kind resolve, then are refused for the route: 403, not 401.
    for (const secret of [
      second.seller.credential,
      second.buyer.credential,
      second.merchant_protocol_key,
      second.buyer_protocol_key,
    ]) {
      const res = await request(t.url).get('/v1/api-keys').set('Authorization', `Bearer ${secret}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('wrong_credential');
    }
  });

  it('leaves one live sandbox API key and one live protocol key per role', async () => {
    const keys = await t.db.query(
      `SELECT name FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL`,
      [second.workspace_id],
    );
    expect(keys).toEqual([{ name: 'sandbox' }]);
    const pkeys = await t.db.query(
      `SELECT role, agent_id FROM protocol_keys WHERE workspace_id = $1 AND revoked_at IS NULL ORDER BY role`,
      [second.workspace_id],
    );
    expect(pkeys).toEqual([
      { role: 'buyer', agent_id: second.buyer.agent_id },
      { role: 'merchant', agent_id: second.seller.agent_id },
    ]);
  });

  it('resets the demo password: only the newest one signs in', async () => {
    const sessions = t.get(PersonSessionService);
    await expect(
      sessions.signIn({ email: 'demo@sandbox.local', password: first.person.password }),
    ).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
    const s = await sessions.signIn({
      email: 'demo@sandbox.local',
      password: second.person.password,
    });
    expect(s.person.workspaceId).toBe(second.workspace_id);
  });

  it('prints exactly one JSON object from `npm run sandbox -- --json` and rotates again', async () => {
    const { stdout } = await run(
      'npx',
      [
        'ts-node',
        '-r',
        'tsconfig-paths/register',
        '--transpile-only',
        'src/cli/sandbox.ts',
        '--json',
      ],
      {
        cwd: `${__dirname}/../..`,
        env: {
          ...process.env,
          DATABASE_URL: t.config.databaseUrl,
          REDIS_URL: TEST_REDIS_URL,
          LOG_LEVEL: 'silent',
          QUEUE_PREFIX: `t${randomToken(8)}`,
          RUN_WORKERS: 'false',
        },
        timeout: 60_000,
      },
    );
    const out = JSON.parse(stdout) as SandboxResult;
    expect(Object.keys(out).sort()).toEqual(
      [
        'api_key',
        'app_url',
        'base_url',
        'buyer',
        'buyer_protocol_key',
        'forex',
        'mandate_id',
        'merchant_protocol_key',
        'offers',
        'operator',
        'person',
        'seller',
        'workspace_id',
      ].sort(),
    );
    expect(out.workspace_id).toBe(second.workspace_id);
    expect(out.seller.agent_id).toBe(second.seller.agent_id);
    expect(out.buyer.agent_id).toBe(second.buyer.agent_id);
    expect(out.mandate_id).toBe(second.mandate_id);
    expect(out.offers).toHaveLength(2);
    expect(out.person.email).toBe('demo@sandbox.local');
    expect(out.operator).toEqual({
      email: 'ops@sandbox.local',
      password: expect.stringMatching(/^ops-.{24}$/) as unknown,
      sign_in_url: `${out.app_url}/login?next=%2Fapp%2Fops%2Fqueues`,
    });
    expect(out.person.password.length).toBeGreaterThanOrEqual(10);
    expect(out.api_key).toMatch(/^sk_/);
    expect(out.app_url).toBe(`${out.base_url}/app`);
    expect(await statusWith(t, out.api_key)).toBe(200);
    expect(await statusWith(t, second.api_key)).toBe(401);
  }, 90_000);

  it('registers one sandbox webhook endpoint with --webhook-url, replacing the previous one', async () => {
    const sandbox = t.get(SandboxService);
    const a = await sandbox.bootstrap({ webhookUrl: 'http://127.0.0.1:4000/hooks' });
    const b = await sandbox.bootstrap({ webhookUrl: 'http://127.0.0.1:4001/hooks' });
    expect(b.webhook).toMatchObject({
      url: 'http://127.0.0.1:4001/hooks',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(b.webhook!.endpoint_id).not.toBe(a.webhook!.endpoint_id);
    const rows = await t.db.query(
      `SELECT id, status FROM webhook_endpoints WHERE workspace_id = $1 AND description = 'sandbox' ORDER BY created_at`,
      [b.workspace_id],
    );
    expect(rows).toEqual([
      { id: a.webhook!.endpoint_id, status: 'disabled' },
      { id: b.webhook!.endpoint_id, status: 'enabled' },
    ]);
    const listed = await request(t.url)
      .get('/v1/webhooks/endpoints')
      .set('Authorization', `Bearer ${b.api_key}`)
      .expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(b.webhook!.secret);
  });
});
