import { Writable } from 'node:stream';

import { Type } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { PARAMS_PROVIDER_TOKEN } from 'nestjs-pino';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { Clock } from '../../src/common/clock';
import { loggerOptions } from '../../src/common/http/logging';
import { randomToken } from '../../src/common/ids';
import { APP_CONFIG, AppConfig, loadConfig } from '../../src/config/app.config';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-db';

/**
 * Each test file gets its own database, cloned from the migrated template that the global setup
 * built (CREATE DATABASE … TEMPLATE is a file copy, ~100 ms). Files then cannot see each other's
 * rows: another file's moved clock or background sweeps (approval expiry, outbox dispatch) cannot
 * touch them. Every app started in one file shares that file's database (jest loads this module
 * once per file), so restart tests still see their data.
 */
let fileDatabase: Promise<string> | null = null;

async function cloneTemplate(): Promise<string> {
  const template = new URL(TEST_DATABASE_URL);
  const templateName = decodeURIComponent(template.pathname.slice(1));
  const name = `${templateName}_f_${randomToken(10).toLowerCase()}`;
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
        break;
      } catch (err) {
        // Two files cloning at the same instant can briefly collide on the template.
        if (attempt >= 20) {
          throw err;
        }
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await client.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export function testDatabaseUrl(): Promise<string> {
  fileDatabase ??= cloneTemplate();
  return fileDatabase;
}

export interface TestApp {
  app: NestExpressApplication;
  /** http://127.0.0.1:<port> */
  url: string;
  config: AppConfig;
  db: DataSource;
  clock: Clock;
  get<T>(type: Type<T>): T;
  close(): Promise<void>;
}

/**
 * Boots the real AppModule on a random port against the test database and real Redis. Each app
 * gets its own queue prefix so parallel test files never process each other's jobs.
 */
export async function startApp(
  overrides: Partial<AppConfig> = {},
  extra: { controllers?: Type<unknown>[]; providers?: Type<unknown>[] } = {},
): Promise<TestApp> {
  const base = loadConfig({
    DATABASE_URL: await testDatabaseUrl(),
    REDIS_URL: TEST_REDIS_URL,
    MODE: 'test',
    LOG_LEVEL: 'silent',
    // Test files sign in, read public pages and call with one credential many times from one
    // address; rate-limit.e2e-spec sets its own.
    RATE_LIMIT_LOGIN_PER_MIN: '10000',
    RATE_LIMIT_PUBLIC_PER_S: '10000',
    RATE_LIMIT_PUBLIC_BURST: '10000',
    RATE_LIMIT_CREDENTIAL_PER_S: '10000',
  });
  const config: AppConfig = {
    ...base,
    queuePrefix: `t${randomToken(8)}`,
    runMigrations: false,
    ...overrides,
  };
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule],
    controllers: extra.controllers ?? [],
    providers: extra.providers ?? [],
  })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    bodyParser: false,
    logger: false,
  });
  configureApp(app, { quietLogs: true });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  // Links the service prints (authorization_url, permalink_url) point at this instance.
  config.baseUrl = overrides.baseUrl ?? url;
  config.appUrl = overrides.appUrl ?? `${url}/app`;
  return {
    app,
    url,
    config,
    db: app.get(DataSource),
    clock: app.get(Clock),
    get: <T>(type: Type<T>) => app.get(type),
    close: () => app.close(),
  };
}

/**
 * startApp with every log line (pino's request logs and the Nest logger, at trace) pushed to
 * `logs`, for tests that prove a value never reaches a log. `env` adds to the test environment.
 */
export async function startAppCapturingLogs(
  logs: string[],
  env: Record<string, string> = {},
): Promise<TestApp> {
  const config: AppConfig = {
    ...loadConfig({
      DATABASE_URL: await testDatabaseUrl(),
      REDIS_URL: TEST_REDIS_URL,
      MODE: 'test',
      LOG_LEVEL: 'trace',
      RATE_LIMIT_CREDENTIAL_PER_S: '10000',
      ...env,
    }),
    queuePrefix: `t${randomToken(8)}`,
    runMigrations: false,
  };
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .overrideProvider(PARAMS_PROVIDER_TOKEN)
    .useValue({ pinoHttp: [loggerOptions(config).pinoHttp, sink] })
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  config.baseUrl = url;
  config.appUrl = `${url}/app`;
  return {
    app,
    url,
    config,
    db: app.get(DataSource),
    clock: app.get(Clock),
    get: <T>(type: Type<T>) => app.get(type),
    close: () => app.close(),
  };
}
