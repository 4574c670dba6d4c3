import 'reflect-metadata';

import type { NestExpressApplication } from '@nestjs/platform-express';

import { ConfigError, loadConfig } from './config/app.config';
import { preflight } from './database/preflight';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  // Waits (bounded) for PostgreSQL and Redis, logging each attempt, before anything listens
  // (docs/operations.md "Boot"). The application's modules are loaded only afterwards, so the
  // first waiting line comes at once.
  await preflight(config);
  const [{ NestFactory }, { AppModule }, { configureApp }, { migrate }, { announce }] =
    await Promise.all([
      import('@nestjs/core'),
      import('./app.module'),
      import('./app.setup'),
      import('./database/migrate'),
      import('./startup-banner'),
    ]);
  if (config.runMigrations) {
    await migrate(config.databaseUrl);
  }
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app);
  await app.listen(config.port, config.host);
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
