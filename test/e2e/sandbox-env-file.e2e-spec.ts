import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import request from 'supertest';

import { parseEnvFile } from '../../src/sandbox/sandbox-env';
import { PersonSessionService } from '../../src/web/person-session.service';
import { startApp, TestApp } from '../support/app';
import { runSandboxCli } from '../support/sandbox-cli';

const run = promisify(execFile);

/** Every variable the guides (docs/try-it.md) read from the env file. */
const VARIABLES = [
  'BASE',
  'APP_URL',
  'WORKSPACE',
  'API_KEY',
  'PERSON',
  'PERSON_PW',
  'SELLER',
  'SELLER_AGENT_CREDENTIAL',
  'SELLER_CRED',
  'BUYER',
  'BUYER_AGENT_CREDENTIAL',
  'BUYER_CRED',
  'MERCHANT_PROTOCOL_KEY',
  'MK',
  'BUYER_PROTOCOL_KEY',
  'BK',
  'MANDATE',
  'OFFER_SMALL',
  'OFFER_SMALL_PAISE',
  'OFFER_LARGE',
  'OFFER_LARGE_PAISE',
  'FXP',
  'DEALER',
  'DEALER_PW',
  'OPERATOR',
  'OPERATOR_PW',
];
const SECRETS = [
  'API_KEY',
  'PERSON_PW',
  'SELLER_AGENT_CREDENTIAL',
  'BUYER_AGENT_CREDENTIAL',
  'MERCHANT_PROTOCOL_KEY',
  'BUYER_PROTOCOL_KEY',
  'DEALER_PW',
  'OPERATOR_PW',
];

/** Status of a /v1 route for a bearer: 401 = unknown or revoked; 200/403 = the credential resolved. */
async function statusWith(t: TestApp, secret: string): Promise<number> {
  return (await request(t.url).get('/v1/api-keys').set('Authorization', `Bearer ${secret}`)).status;
}

describe('npm run sandbox -- --env-file', () => {
  let t: TestApp;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    t = await startApp();
    dir = mkdtempSync(join(tmpdir(), 'sandbox-env-'));
    file = join(dir, '.env.sandbox');
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  const sandbox = (...args: string[]) => runSandboxCli(t, file, args);

  async function signsIn(email: string, password: string): Promise<boolean> {
    return t
      .get(PersonSessionService)
      .signIn({ email, password })
      .then(
        () => true,
        () => false,
      );
  }

  async function allWork(env: Record<string, string>): Promise<boolean[]> {
    return [
      (await statusWith(t, env.API_KEY)) === 200,
      ...(await Promise.all(
        [env.SELLER_CRED, env.BUYER_CRED, env.MK, env.BK].map(
          async (s) => (await statusWith(t, s)) === 403,
        ),
      )),
      await signsIn(env.PERSON, env.PERSON_PW),
      await signsIn(env.DEALER, env.DEALER_PW),
      await signsIn(env.OPERATOR, env.OPERATOR_PW),
    ];
  }

  it('writes every variable (mode 0600), keeps them on a second run, and --rotate replaces them', async () => {
    const first = await sandbox();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Object.keys(first).sort()).toEqual([...VARIABLES].sort());
    for (const name of VARIABLES) {
      expect(first[name]).not.toBe('');
    }
    expect(first.BASE).toBe(t.url);
    expect(first.APP_URL).toBe(`${t.url}/app`);
    expect(first.PERSON).toBe('demo@sandbox.local');
    // The shell reads the same values back.
    const { stdout } = await run('bash', [
      '-c',
      `source '${file}' && printf '%s\\n' "$PERSON_PW" "$MK"`,
    ]);
    expect(stdout).toBe(`${first.PERSON_PW}\n${first.MK}\n`);
    // The old names (docs/credentials.md "Old names") carry the same values for one release.
    expect([first.SELLER_CRED, first.BUYER_CRED, first.MK, first.BK]).toEqual([
      first.SELLER_AGENT_CREDENTIAL,
      first.BUYER_AGENT_CREDENTIAL,
      first.MERCHANT_PROTOCOL_KEY,
      first.BUYER_PROTOCOL_KEY,
    ]);
    expect(await allWork(first)).toEqual(Array(8).fill(true));

    const second = await sandbox();
    expect(second).toEqual(first);
    expect(await allWork(first)).toEqual(Array(8).fill(true));

    const rotated = await sandbox('--rotate');
    for (const name of SECRETS) {
      expect(rotated[name]).not.toBe(first[name]);
    }
    for (const name of ['WORKSPACE', 'SELLER', 'BUYER', 'MANDATE', 'FXP']) {
      expect(rotated[name]).toBe(first[name]);
    }
    expect(await allWork(first)).toEqual(Array(8).fill(false));
    expect(await allWork(rotated)).toEqual(Array(8).fill(true));
  }, 180_000);

  it('replaces only what stopped working', async () => {
    const before = parseEnvFile(readFileSync(file, 'utf8'));
    await request(t.url)
      .get('/v1/api-keys')
      .set('Authorization', `Bearer ${before.API_KEY}`)
      .expect(200)
      .then(async (res) => {
        const key = (res.body.data as { id: string; name: string }[]).find(
          (k) => k.name === 'sandbox',
        )!;
        await request(t.url)
          .post(`/v1/api-keys/${key.id}/revoke`)
          .set('Authorization', `Bearer ${before.API_KEY}`)
          .expect(200);
      });
    expect(await statusWith(t, before.API_KEY)).toBe(401);
    const after = await sandbox();
    expect(after.API_KEY).not.toBe(before.API_KEY);
    expect(await statusWith(t, after.API_KEY)).toBe(200);
    for (const name of SECRETS.filter((n) => n !== 'API_KEY')) {
      expect(after[name]).toBe(before[name]);
    }
  }, 90_000);
});
