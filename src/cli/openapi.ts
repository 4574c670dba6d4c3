// Writes openapi/openapi.json from the decorators without touching Postgres or Redis (Nest preview mode).
import 'reflect-metadata';

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { NestFactory } from '@nestjs/core';

import { AppModule } from '../app.module';
import { buildOpenApiDocument, serialiseOpenApi } from '../openapi/openapi.document';

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const doc = buildOpenApiDocument(app);
  const out = join(__dirname, '..', '..', 'openapi', 'openapi.json');
  writeFileSync(out, serialiseOpenApi(doc));
  process.stdout.write(`wrote ${out} (${Object.keys(doc.paths).length} paths)\n`);
  await app.close().catch(() => undefined);
  process.exit(0);
}

void main();
