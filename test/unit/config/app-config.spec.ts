import { ConfigError, loadConfig } from '../../../src/config/app.config';
import { preflight } from '../../../src/database/preflight';

describe('loadConfig', () => {
  it('works with no environment at all (local defaults)', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      mode: 'sandbox',
      port: 3000,
      baseUrl: 'http://localhost:3000',
      appUrl: 'http://localhost:3000/app',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/payments',
      redisUrl: 'redis://127.0.0.1:6379',
      approvalThresholdPaise: 200_000,
    });
  });

  it('limits each credential to 25 requests/s in sandbox and test and 100/s in live, public routes to 10/s with a burst of 20', () => {
    const live = {
      MODE: 'live',
      BASE_URL: 'https://pay.example.in',
      SIGNING_PRIVATE_KEY: 'x',
      WEBHOOK_SECRET_KEY: 'a'.repeat(64),
    };
    expect(loadConfig({}).rateLimitCredentialPerSecond).toBe(25);
    expect(loadConfig({ MODE: 'test' }).rateLimitCredentialPerSecond).toBe(25);
    expect(loadConfig(live).rateLimitCredentialPerSecond).toBe(100);
    expect(
      loadConfig({ ...live, RATE_LIMIT_CREDENTIAL_PER_S: '7' }).rateLimitCredentialPerSecond,
    ).toBe(7);
    expect(loadConfig({})).toMatchObject({
      rateLimitPublicPerSecond: 10,
      rateLimitPublicBurst: 20,
      rateLimitLoginPerMinute: 10,
      rateLimitRedisTimeoutMs: 250,
    });
    expect(loadConfig({ RATE_LIMIT_REDIS_TIMEOUT_MS: '1000' }).rateLimitRedisTimeoutMs).toBe(1000);
  });

  it.each([
    [{ RATE_LIMIT_CREDENTIAL_PER_S: '0' }, /RATE_LIMIT_CREDENTIAL_PER_S must be an integer >= 1/],
    [{ RATE_LIMIT_PUBLIC_BURST: 'many' }, /RATE_LIMIT_PUBLIC_BURST must be an integer >= 1/],
    [{ RATE_LIMIT_REDIS_TIMEOUT_MS: '0' }, /RATE_LIMIT_REDIS_TIMEOUT_MS must be an integer >= 1/],
    [
      { RATE_LIMIT_PUBLIC_PER_MIN: '120' },
      /RATE_LIMIT_PUBLIC_PER_MIN was replaced by RATE_LIMIT_PUBLIC_PER_S and RATE_LIMIT_PUBLIC_BURST/,
    ],
    [{ MODE: 'prod' }, /MODE must be sandbox, test or live/],
    [{ PORT: 'eighty' }, /PORT must be an integer/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use postgres/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL must be a URL/],
    [{ IDEMPOTENCY_TTL_HOURS: '1' }, /IDEMPOTENCY_TTL_HOURS must be an integer >= 24/],
    [{ MODE: 'live', BASE_URL: 'http://pay.example.in' }, /BASE_URL must be https in live mode/],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('signing key configuration', () => {
  const live = {
    MODE: 'live',
    BASE_URL: 'https://pay.example.in',
    WEBHOOK_SECRET_KEY: 'ab'.repeat(32),
  };
  const pem = '-----BEGIN PRIVATE KEY-----\\nMC4CAQAwBQYDK2VwBCIEIA==\\n-----END PRIVATE KEY-----';

  it('refuses to boot live without SIGNING_PRIVATE_KEY, in one line saying what to set', () => {
    expect(() => loadConfig(live)).toThrow(ConfigError);
    expect(() => loadConfig(live)).toThrow(/^SIGNING_PRIVATE_KEY is required in live mode/);
    expect(() => loadConfig({ ...live, SIGNING_PRIVATE_KEY: '' })).toThrow(
      /SIGNING_PRIVATE_KEY is required/,
    );
    expect(loadConfig({ ...live, SIGNING_PRIVATE_KEY: pem }).signingPrivateKeyPem).toBe(
      pem.replace(/\\n/g, '\n'),
    );
  });

  it('generates outside live mode: a fixed dev SIGNING_KEY_ENCRYPTION_KEY unless one is given', () => {
    for (const mode of ['sandbox', 'test']) {
      const c = loadConfig({ MODE: mode });
      expect(c.signingPrivateKeyPem).toBeNull();
      expect(c.signingKeyEncryptionKey).toHaveLength(32);
      // Same key on every boot, so a generated signing key survives restarts.
      expect(loadConfig({ MODE: mode }).signingKeyEncryptionKey).toEqual(c.signingKeyEncryptionKey);
      expect(c.signingKeyEncryptionKey).not.toEqual(c.webhookSecretKey);
    }
    expect(loadConfig({ ...live, SIGNING_PRIVATE_KEY: pem }).signingKeyEncryptionKey).toBeNull();
  });

  it('takes SIGNING_KEY_ENCRYPTION_KEY as 32 bytes, hex or base64, and refuses anything else', () => {
    expect(
      loadConfig({ SIGNING_KEY_ENCRYPTION_KEY: 'cd'.repeat(32) }).signingKeyEncryptionKey,
    ).toEqual(Buffer.alloc(32, 0xcd));
    const b64 = Buffer.alloc(32, 5).toString('base64');
    expect(
      loadConfig({ ...live, SIGNING_PRIVATE_KEY: pem, SIGNING_KEY_ENCRYPTION_KEY: b64 })
        .signingKeyEncryptionKey,
    ).toEqual(Buffer.alloc(32, 5));
    for (const bad of [Buffer.alloc(16, 1).toString('base64'), 'ab'.repeat(31), 'not a key']) {
      expect(() => loadConfig({ SIGNING_KEY_ENCRYPTION_KEY: bad })).toThrow(
        /^SIGNING_KEY_ENCRYPTION_KEY must be 32 bytes, base64 or 64 hex characters$/,
      );
    }
  });
});

describe('preflight', () => {
  // A short bound: the boot's wait itself is tested in test/e2e/boot-wait.e2e-spec.ts.
  const quick = { waitMs: 300, retryMs: 100, log: () => undefined };

  it('says what to start when Postgres is unreachable', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/payments' });
    await expect(preflight(config, quick)).rejects.toThrow(
      /Cannot reach PostgreSQL .*docker compose up -d/,
    );
  });

  it('says what to start when Redis is unreachable', async () => {
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:1',
      DATABASE_URL:
        process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments_test',
    });
    await expect(preflight(config, quick)).rejects.toThrow(
      /Cannot reach Redis .*docker compose up -d/,
    );
  });
});
