import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { NestFactory } from '@nestjs/core';

import { AppModule } from '../../../src/app.module';
import { buildOpenApiDocument, serialiseOpenApi } from '../../../src/openapi/openapi.document';
import { tsFilesUnder } from '../../support/source-files';

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

/**
 * The document names a request or response schema after its class, and of two classes with one
 * name it keeps whichever module registered first: the other's fields would be documented wrong,
 * and moving a module would swap them. So a class that declares API properties has its own name.
 */
describe('schema names', () => {
  it('no two classes with API properties share a name', () => {
    const byName = new Map<string, string[]>();
    for (const file of tsFilesUnder(join(__dirname, '..', '..', '..', 'src'))) {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('@ApiProperty')) {
        continue;
      }
      for (const m of text.matchAll(/^export class (\w+)/gm)) {
        byName.set(m[1], [...(byName.get(m[1]) ?? []), file]);
      }
    }
    const shared = [...byName].filter(([, files]) => files.length > 1).map(([name]) => name);
    expect(shared).toEqual([]);
  });
});
