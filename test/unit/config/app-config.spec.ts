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

  it.each([
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

describe('preflight', () => {
  it('says what to start when Postgres is unreachable', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/payments' });
    await expect(preflight(config)).rejects.toThrow(/Cannot reach PostgreSQL .*docker compose up -d/);
  });

  it('says what to start when Redis is unreachable', async () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments_test' });
    await expect(preflight(config)).rejects.toThrow(/Cannot reach Redis .*docker compose up -d/);
  });
});
