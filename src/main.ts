import 'reflect-metadata';

import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';

import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { ConfigError, loadConfig } from './config/app.config';
import { migrate } from './database/migrate';
import { preflight } from './database/preflight';
import { announce } from './startup-banner';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  await preflight(config);
  if (config.runMigrations) {
    await migrate(config.databaseUrl);
  }
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app);
  await app.listen(config.port);
  announce(app, config);
}

bootstrap().catch((err: unknown) => {
  if (err instanceof ConfigError || (err as { preflight?: boolean }).preflight) {
    process.stderr.write(`${(err as Error).message}\n`);
  } else {
    process.stderr.write(`startup failed: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.exit(1);
});
