import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { addErrorResponses } from './error-responses';

/** The OpenAPI contract, built from our decorators; written to openapi/openapi.json by `npm run openapi`. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Agent commerce and payments service')
    .setDescription(
      'ACP 2026-04-17 merchant checkout and delegate_payment over UPI mandates, seller surface and signed receipts. ' +
        'Protocol routes (/acp) take a protocol key and answer errors flat as {type, code, message, param}; /v1 routes take ' +
        'an API key or an agent credential and answer errors as {"error":{type, code, message, param, request_id}}. ' +
        'Every POST accepts Idempotency-Key (required on /acp). See the README for signing and the full flow.',
    )
    .setVersion('2026-04-17')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_test_… workspace API key' }, 'apiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'agc_… agent credential' }, 'agentCredential')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'acpk_… protocol key, role merchant' }, 'merchantProtocolKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'acpk_… protocol key, role buyer' }, 'buyerProtocolKey')
    .build();
  return addErrorResponses(SwaggerModule.createDocument(app, config, { operationIdFactory: (_c, method) => method }));
}

/** Stable JSON text for the committed file (a test compares it with the live document). */
export function serialiseOpenApi(doc: OpenAPIObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
