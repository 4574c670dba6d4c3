import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { addErrorResponses } from './error-responses';
import { addMcpPath } from './mcp.openapi';
import { finaliseOperations } from './operations';

/** The OpenAPI contract, built from our decorators; written to openapi/openapi.json by `npm run openapi`. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Agent commerce and payments service')
    .setDescription(
      'ACP 2026-04-17 merchant checkout and delegate_payment over UPI mandates, seller surface and signed receipts. ' +
        'Protocol routes (/acp) take a protocol key and answer errors flat as {type, code, message, param}; /v1 routes take ' +
        'an API key or an agent credential and answer errors as {"error":{type, code, message, param, request_id}}. ' +
        'Every POST accepts Idempotency-Key (required on /acp). See docs/security.md for signing and docs/try-it.md for the full flow.',
    )
    .setVersion('2026-04-17')
    .setLicense('UNLICENSED', '')
    // The origin is the deployment's BASE_URL (src/config/app.config.ts); locally http://localhost:3000.
    .addServer('{baseUrl}', 'This deployment', {
      baseUrl: {
        default: 'http://localhost:3000',
        description: 'BASE_URL of the deployment (default http://localhost:PORT)',
      },
    })
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'sk_test_… workspace API key (opaque, not a JWT)',
      },
      'apiKey',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'agc_… agent credential (opaque, not a JWT)',
      },
      'agentCredential',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'acpk_… protocol key, role merchant (opaque, not a JWT)',
      },
      'merchantProtocolKey',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'acpk_… protocol key, role buyer (opaque, not a JWT)',
      },
      'buyerProtocolKey',
    )
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_c, method) => method,
  });
  // UNLICENSED (package.json): proprietary, so a name and no URL.
  doc.info.license = { name: 'UNLICENSED' };
  delete doc.info.contact;
  addMcpPath(doc);
  finaliseOperations(doc);
  return addErrorResponses(doc);
}

function sortedKeys<T>(record: Record<string, T> | undefined): Record<string, T> | undefined {
  return (
    record &&
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    )
  );
}

/**
 * Stable JSON text for the committed file (a test compares it with the live document). Paths and
 * schemas are sorted so the text does not depend on the order Nest happens to load modules in.
 */
export function serialiseOpenApi(doc: OpenAPIObject): string {
  const stable = {
    ...doc,
    paths: sortedKeys(doc.paths),
    components: doc.components && {
      ...doc.components,
      schemas: sortedKeys(doc.components.schemas),
    },
  };
  return `${JSON.stringify(stable, null, 2)}\n`;
}
