import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NestFactory } from '@nestjs/core';

import { AppModule } from '../../../src/app.module';
import { buildOpenApiDocument, serialiseOpenApi } from '../../../src/openapi/openapi.document';

describe('openapi/openapi.json', () => {
  it('matches the contract generated from the decorators (run `npm run openapi` when this fails)', async () => {
    const app = await NestFactory.create(AppModule, {
      preview: true,
      logger: false,
      abortOnError: false,
    });
    const live = serialiseOpenApi(buildOpenApiDocument(app));
    const committed = readFileSync(
      join(__dirname, '..', '..', '..', 'openapi', 'openapi.json'),
      'utf8',
    );
    expect(JSON.parse(committed)).toEqual(JSON.parse(live));
    expect(committed).toBe(live);
  });
});
