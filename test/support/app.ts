import { Type } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { Clock } from '../../src/common/clock';
import { randomToken } from '../../src/common/ids';
import { APP_CONFIG, AppConfig, loadConfig } from '../../src/config/app.config';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-db';

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
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    MODE: 'test',
    LOG_LEVEL: 'silent',
  });
  const config: AppConfig = { ...base, queuePrefix: `t${randomToken(8)}`, runMigrations: false, ...overrides };
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule],
    controllers: extra.controllers ?? [],
    providers: extra.providers ?? [],
  })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
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
